import type { Resource } from '../resource.ts';
import { healthRoutes } from './routes.ts';

export const health: Resource = {
  tag: { name: 'Health', description: 'Liveness.' },
  routes: (app, _services, deps) => healthRoutes(app, deps.clock),
};
