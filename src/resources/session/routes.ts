import type { TypedApp } from '../../http/typed.ts';
import { One } from '../../schemas/common.ts';
import { SCOPES } from '../../model/token.ts';
import { Session } from './schema.ts';

const OPEN: Session = { auth: 'none', username: null, scopes: [...SCOPES] };

export function sessionRoutes(app: TypedApp, tag: string): void {
  app.get('/api/session', {
    // A client asks with the token it holds: without one (AUTH=token) the answer is 401, as for any read.
    config: { scope: 'read' },
    schema: {
      operationId: 'getSession',
      tags: [tag],
      summary: 'Who the caller is: the mode, the token’s username and scopes',
      description:
        'With `AUTH=token`, the username and scopes of the token sent (a client can hide what they do not allow); ' +
        'without, `auth: "none"` and every scope.',
      response: { 200: One(Session) },
    },
    handler: async (request) => {
      const principal = request.principal;
      const session: Session = principal
        ? { auth: 'token', username: principal.username, scopes: [...principal.scopes] }
        : OPEN;
      return { data: session };
    },
  });
}
