import * as seed from '../../store/seed-data.ts';
import type { Resource } from '../resource.ts';
import { activityRoutes } from './routes.ts';
import { ActivityEntry } from '../../model/activity.ts';
import { ACTIVITY_LABEL } from './service.ts';

/** Newest first, as the log lists them. */
const samples = [...seed.activity].reverse();

/**
 * The log's names, given rather than derived: its entries are `activity` events (`resourceType` and store key),
 * the collection is the log (path and tag), and each record is an entry (label and component).
 */
const names = { path: '/api/activity-log', tag: 'Activity log', label: ACTIVITY_LABEL, component: 'ActivityEntry' };

/** The activity log: its own routes (append and query; entries never change), not the standard ones. */
export const activityLog: Resource = {
  tag: { name: names.tag, description: 'The append-only history of every change, newest first.' },
  collection: { path: names.path, label: names.label, samples },
  components: [{ name: names.component, schema: ActivityEntry, samples }],
  routes: (app, services) => activityRoutes(app, services.activity, names),
};
