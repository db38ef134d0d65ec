import type { Resource } from '../resource.ts';
import { sessionRoutes } from './routes.ts';
import { Session } from './schema.ts';

const tag = 'Session';

export const session: Resource = {
  tag: { name: tag, description: 'Who the caller is: the authentication mode, and the token’s username and scopes.' },
  components: [
    {
      name: 'Session',
      schema: Session,
      samples: [{ auth: 'token', username: 'dashboard', scopes: ['read'] }],
    },
  ],
  routes: (app) => sessionRoutes(app, tag),
};
