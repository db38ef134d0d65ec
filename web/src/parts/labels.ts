/**
 * The words the app shows for the API's enumerations. Typed by the records' own fields, so a value added to or
 * renamed in the API fails the type check until it has its label here; the order is the API's progression.
 */
import type { Milestone, Project, Task } from '../types.ts';

export const TASK_STATUS_LABEL: Readonly<Record<Task['status'], string>> = {
  todo: 'To do',
  in_progress: 'In progress',
  done: 'Done',
};
export const PRIORITY_LABEL: Readonly<Record<Task['priority'], string>> = {
  low: 'Low',
  medium: 'Medium',
  high: 'High',
};
export const PROJECT_STATUS_LABEL: Readonly<Record<Project['status'], string>> = {
  planned: 'Planned',
  active: 'Active',
  completed: 'Completed',
};
export const MILESTONE_STATUS_LABEL: Readonly<Record<Milestone['status'], string>> = {
  pending: 'Pending',
  in_progress: 'In progress',
  reached: 'Reached',
};

/** The board's columns, in the API's progression. */
export const TASK_STATUSES = Object.keys(TASK_STATUS_LABEL) as Task['status'][];
