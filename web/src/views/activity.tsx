/** `/activity` and a project's Activity tab: who did what, newest first, live. */
import { ActivityFeed } from '../parts/activity-feed.tsx';
import { ProjectHead, useProject } from '../parts/project-head.tsx';
import { useTitle } from '../parts/title.ts';
import { NotFound } from './not-found.tsx';

export function Activity() {
  useTitle('Activity');
  return (
    <section class="view narrow-wide">
      <h1>Activity</h1>
      <ActivityFeed />
    </section>
  );
}

export function ProjectActivity({ projectId }: { projectId: string }) {
  const { project } = useProject(projectId);
  useTitle(project === 'missing' ? null : project ? `${project.name} activity` : 'Activity');
  if (project === 'missing') return <NotFound what="project" />;
  return (
    <section class="view narrow-wide">
      <ProjectHead projectId={projectId} project={project} />
      <ActivityFeed key={projectId} projectId={projectId} />
    </section>
  );
}
