import { kindNames } from '../../core/names.ts';
import { reference, type ResourceDef } from '../../core/rules.ts';
import * as seed from '../../store/seed-data.ts';
import { deleteProjectDependents } from '../cascade.ts';
import { crudResource } from '../resource.ts';
import { ProjectInput, ProjectQuery } from './schema.ts';
import { ProjectList, Project } from '../../model/project.ts';

const names = kindNames('project');

export const projectRules: ResourceDef<Project, ProjectInput, ProjectInput> = {
  names,
  idPrefix: 'proj',
  // Updated by PUT, a full replacement: omitted fields take their defaults, `id` and `createdAt` are kept.
  apply: 'replace',
  createSchema: ProjectInput,
  build: (input) => ({
    name: input.name,
    description: input.description!,
    status: input.status!,
    teamId: input.teamId!,
  }),
  check: reference('teamId', 'team', (tx, id) => tx.teams.get(id)),
  cascade: (project, tx) => deleteProjectDependents(tx, project.id),
};

export const projects = crudResource(projectRules, {
  description:
    'Projects, optionally owned by a team. `PUT` replaces; delete cascades to tasks (with their comments and time ' +
    'entries), milestones and comments, each recorded and published as a delete of its own (`cascadeOf`).',
  samples: seed.projects,
  schemas: { record: Project, query: ProjectQuery, update: ProjectInput },
  list: ProjectList,
});
