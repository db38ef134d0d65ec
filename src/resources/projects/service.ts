import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { projectRules } from './rules.ts';
import type { ProjectInput } from './schema.ts';
import type { Project } from '../../model/project.ts';

export class ProjectService extends ResourceService<Project, ProjectInput, ProjectInput, Project, 'projects'> {
  constructor(deps: ServiceDeps<'projects'>) {
    super(projectRules, deps);
  }
}
