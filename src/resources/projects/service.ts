import { ResourceService, reference, type ResourceDef } from '../../core/resource-service.ts';
import { deleteProjectDependents } from '../cascade.ts';
import { ProjectInput, type Project } from './schema.ts';

export const projectDef: ResourceDef<Project, ProjectInput, ProjectInput> = {
  type: 'project',
  label: 'Project',
  idPrefix: 'proj',
  updatedAt: true,
  apply: 'replace',
  collection: (store) => store.projects,
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

export type ProjectService = ResourceService<Project, ProjectInput, ProjectInput>;
