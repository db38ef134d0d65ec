import type { Resource } from '../resource.ts';
import { healthRoutes } from './routes.ts';

const tag = 'Health';

export const health: Resource = {
  tag: { name: tag, description: 'Liveness, and readiness (whether the store answers).' },
  routes: (app, services) => healthRoutes(app, services.health, tag),
};
