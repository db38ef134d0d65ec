import * as seed from '../../store/seed-data.ts';
import { crudResource } from '../resource.ts';
import { ProjectInput, ProjectQuery } from './schema.ts';
import { ProjectList, Project } from '../../model/project.ts';
import { projectRules } from './rules.ts';

export const projects = crudResource(projectRules, {
  description:
    'Projects, optionally owned by a team. `PUT` replaces; delete cascades to tasks (with their comments and time ' +
    'entries), milestones and comments, each recorded and published as a delete of its own (`cascadeOf`).',
  samples: seed.projects,
  schemas: { record: Project, query: ProjectQuery, update: ProjectInput },
  list: ProjectList,
});
