import { Type } from 'typebox';
import { ErrorResponse } from '../../errors.ts';
import type { TypedApp } from '../../http/typed.ts';
import { StringEnum, Timestamp } from '../../schemas/common.ts';
import type { HealthService } from './service.ts';

export const Health = Type.Object({ status: Type.Literal('ok'), timestamp: Timestamp });

export const Readiness = Type.Object({
  status: Type.Literal('ready'),
  store: StringEnum(['memory', 'embedded', 'postgres'], {
    description: 'Where the records live: in memory, an embedded database (`DATA_DIR`) or a PostgreSQL server',
  }),
});

export function healthRoutes(app: TypedApp, health: HealthService, tag: string): void {
  app.get('/api/health', {
    schema: {
      operationId: 'getHealth',
      tags: [tag],
      summary: 'Liveness check',
      response: { 200: Health },
    },
    config: { scope: 'public' },
    handler: async () => health.liveness(),
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
    config: { scope: 'public' },
    handler: () => health.readiness(),
  });
}
