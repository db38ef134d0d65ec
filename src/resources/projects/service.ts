import { ResourceService, type ServiceDeps } from '../../core/resource-service.ts';
import { projectRules } from './resource.ts';
import type { Project, ProjectInput } from './schema.ts';

export class ProjectService extends ResourceService<Project, ProjectInput, ProjectInput, Project, 'projects'> {
  constructor(deps: ServiceDeps<'projects'>) {
    super(projectRules, deps);
  }
}
