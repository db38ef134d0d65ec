import * as seed from '../../store/seed-data.ts';
import type { Resource } from '../resource.ts';
import { activityRoutes } from './routes.ts';
import { ActivityEntry } from './schema.ts';
import { ACTIVITY_LABEL } from './service.ts';

/** Newest first, as the log lists them. */
const samples = [...seed.activity].reverse();

/** The activity log: its own routes (append and query; entries never change), not the standard ones. */
export const activityLog: Resource = {
  tag: { name: 'Activity log', description: 'The append-only history of every change, newest first.' },
  collection: { path: '/api/activity-log', label: ACTIVITY_LABEL, samples },
  components: [{ name: 'ActivityEntry', schema: ActivityEntry, samples }],
  routes: (app, services) => activityRoutes(app, services.activity),
};
