import { kindNames } from '../../core/names.ts';
import { reference, type ResourceDef } from '../../core/rules.ts';
import { deleteProjectDependents } from '../cascade.ts';
import { ProjectInput } from './schema.ts';
import { Project } from '../../model/project.ts';

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
