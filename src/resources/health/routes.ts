import { Type } from 'typebox';
import { iso, type Clock } from '../../core/runtime.ts';
import { ErrorResponse } from '../../errors.ts';
import type { TypedApp } from '../../http/typed.ts';
import { StringEnum, Timestamp } from '../../schemas/common.ts';
import type { Store } from '../../store/store.ts';

export const Health = Type.Object({ status: Type.Literal('ok'), timestamp: Timestamp });

export const Readiness = Type.Object({
  status: Type.Literal('ready'),
  store: StringEnum(['memory', 'embedded', 'postgres'], {
    description: 'Where the records live: in memory, an embedded database (`DATA_DIR`) or a PostgreSQL server',
  }),
});

export function healthRoutes(app: TypedApp, clock: Clock, store: Store, tag: string): void {
  app.get('/api/health', {
    schema: {
      operationId: 'getHealth',
      tags: [tag],
      summary: 'Liveness check',
      response: { 200: Health },
    },
    handler: async () => ({ status: 'ok' as const, timestamp: iso(clock.now()) }),
  });

  app.get('/api/health/ready', {
    schema: {
      operationId: 'getReadiness',
      tags: [tag],
      summary: 'Readiness check: the store answers',
      description:
        'Answers 200 when the store can serve requests now; 503 `SERVICE_UNAVAILABLE` while its database cannot ' +
        'be reached (a load balancer should send no traffic then). The memory store is always ready.',
      response: { 200: Readiness, 503: ErrorResponse },
    },
    handler: async () => {
      // A store that cannot answer rejects with its StoreUnavailableError: the error handler answers 503.
      await store.ping();
      return { status: 'ready' as const, store: store.kind };
    },
  });
}
