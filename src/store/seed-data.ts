import { readFileSync } from 'node:fs';
import type { ActivityEntry } from '../model/activity.ts';
import type { Comment } from '../model/comment.ts';
import type { Milestone } from '../model/milestone.ts';
import type { Project } from '../model/project.ts';
import type { Task } from '../model/task.ts';
import type { Team } from '../model/team.ts';
import type { TimeEntry } from '../model/time-entry.ts';
import type { WebhookRecord } from '../model/webhook.ts';

/**
 * The sample records present at every start: one small, consistent history, kept in `samples.json`, a data file
 * (docs/data-files.md) that anyone can read, copy and change into fixtures of their own. Tasks belong to real
 * projects and are assigned to members of the project's team; comments and time entries are by those members; the
 * webhooks point at reserved hosts (RFC 2606 `.example`, `.invalid`), so nothing real is ever called; the activity
 * log, oldest first, tells how it came about. Ids are stable so the docs, examples and tests can name them.
 *
 * The store reads the file itself (it is its default content; the store layer may not import the data-file
 * loader, which sits at the edge): test/data-file/samples.test.ts holds it to `checkDataFile` and to loading the
 * same records through `loadDataFile`, so a start never needs to check it.
 */
interface Samples {
  teams: Team[];
  projects: Project[];
  milestones: Milestone[];
  tasks: Task[];
  comments: Comment[];
  timeEntries: TimeEntry[];
  webhooks: Omit<WebhookRecord, 'secret'>[];
  activityLog: ActivityEntry[];
}

/** Where the sample records are: a data file beside this module (`npm run build` copies it into dist/). */
export const SAMPLES_FILE = new URL('./samples.json', import.meta.url);

const samples = JSON.parse(readFileSync(SAMPLES_FILE, 'utf8')) as Samples;

export const { teams, projects, milestones, tasks, comments, timeEntries, webhooks } = samples;
/** Oldest first, as they happened. */
export const activity = samples.activityLog;
