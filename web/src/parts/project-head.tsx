/**
 * The head of every view of one project: the way back, its name, its tabs. `useProject` reads the project and keeps
 * it current from the event stream (renamed, or deleted while shown: `'missing'`).
 */
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { useLive } from '../live.ts';
import type { Project } from '../types.ts';
import { describe } from './error.tsx';
import { ProjectTabs } from './project-tabs.tsx';
import { deletedHere } from '../views/not-found.tsx';

export type Loaded<T> = T | null | 'missing';

export function useProject(projectId: string): { project: Loaded<Project>; error: string | null } {
  const [project, setProject] = useState<Loaded<Project>>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    try {
      const answer = await api<{ data: Project }>('GET', `/api/projects/${encodeURIComponent(projectId)}`);
      setProject(answer.data.data);
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setProject('missing');
      else setError(describe(err));
    }
  }, [projectId]);
  useEffect(() => void load(), [load]);
  useLive(projectId, {
    onReset: () => void load(),
    onEvent: ({ type, data }) => {
      if (data.id !== projectId) return;
      if (type === 'project.updated') setProject(data as unknown as Project);
      else if (type === 'project.deleted') {
        deletedHere();
        setProject('missing');
      }
    },
  });
  return { project, error };
}

export function ProjectHead(props: { projectId: string; project: Loaded<Project>; children?: ComponentChildren }) {
  const { project } = props;
  return (
    <>
      <div class="view-head">
        <div>
          <p class="crumbs">
            <a href="/projects">Projects</a>
          </p>
          <h1>{project && project !== 'missing' ? project.name : 'Loading…'}</h1>
        </div>
        {props.children}
      </div>
      <ProjectTabs projectId={props.projectId} />
    </>
  );
}
