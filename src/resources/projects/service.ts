import { ResourceService, type ResourceDef } from '../../core/resource-service.ts';
import type { ErrorDetail } from '../../errors.ts';
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
  async check(project, tx) {
    const problems: ErrorDetail[] = [];
    if (project.teamId !== null && !(await tx.teams.get(project.teamId))) {
      problems.push({ field: 'teamId', message: `team '${project.teamId}' does not exist` });
    }
    return problems;
  },
  cascade: (project, tx) => deleteProjectDependents(tx, project.id),
};

export type ProjectService = ResourceService<Project, ProjectInput, ProjectInput>;
