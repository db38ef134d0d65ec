import { Type } from 'typebox';
import { iso, type Clock } from '../../core/runtime.ts';
import type { TypedApp } from '../../http/typed.ts';
import { Timestamp } from '../../schemas/common.ts';

export const Health = Type.Object({ status: Type.Literal('ok'), timestamp: Timestamp });

export function healthRoutes(app: TypedApp, clock: Clock, tag: string): void {
  app.get('/api/health', {
    schema: {
      operationId: 'getHealth',
      tags: [tag],
      summary: 'Liveness check',
      response: { 200: Health },
    },
    handler: async () => ({ status: 'ok' as const, timestamp: iso(clock.now()) }),
  });
}
