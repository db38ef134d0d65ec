/** The views of one project, as tabs under its name: its board, milestones, time and activity. */
import { place } from '../router.ts';

const TABS = [
  ['', 'Board'],
  ['/milestones', 'Milestones'],
  ['/time', 'Time'],
  ['/activity', 'Activity'],
] as const;

export function ProjectTabs({ projectId }: { projectId: string }) {
  const base = `/projects/${encodeURIComponent(projectId)}`;
  return (
    <nav class="tabs" aria-label="Project">
      {TABS.map(([suffix, label]) => (
        <a key={label} href={base + suffix} aria-current={place.value.path === base + suffix ? 'page' : undefined}>
          {label}
        </a>
      ))}
    </nav>
  );
}
