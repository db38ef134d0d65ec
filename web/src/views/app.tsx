/** The frame of every view: the header (who, where, whether the service answers) and the view the path names. */
import { useSignal, useSignalEffect } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { connection } from '../api.ts';
import { streamState } from '../live.ts';
import { followLink, place } from '../router.ts';
import { authMode, restoring, signOut, user } from '../session.ts';
import { Board } from './board.tsx';
import { NotFound } from './not-found.tsx';
import { Projects } from './projects.tsx';
import { SignIn } from './sign-in.tsx';
import { TaskView } from './task.tsx';

export function App() {
  const me = user.value;
  return (
    <div class="app" onClick={followLink}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="/">
          pm-service
        </a>
        <nav aria-label="Main">
          <a href="/projects" aria-current={place.value.path === '/projects' ? 'page' : undefined}>
            Projects
          </a>
        </nav>
        <Status />
        {me && (
          <div class="me">
            <span class="who" title={authMode === 'token' ? 'Signed in with an API token' : 'Your name in this app'}>
              {me.username}
            </span>
            <button type="button" class="quiet" onClick={() => signOut()}>
              {authMode === 'token' ? 'Sign out' : 'Change name'}
            </button>
          </div>
        )}
      </header>
      <AppError />
      <main id="main" tabIndex={-1}>
        {me ? <View /> : restoring.value ? <p aria-busy="true">Signing in…</p> : <SignIn />}
      </main>
    </div>
  );
}

function View() {
  const path = place.value.path;
  const project = /^\/projects\/([^/]+)$/.exec(path);
  const task = /^\/tasks\/([^/]+)$/.exec(path);
  if (path === '/' || path === '/projects') return <Projects />;
  if (project) return <Board key={project[1]} projectId={decodeURIComponent(project[1]!)} />;
  if (task) return <TaskView key={task[1]} taskId={decodeURIComponent(task[1]!)} />;
  return <NotFound />;
}

/** Whether the service answers: said in the header while it does not, with the app retrying by itself. */
function Status() {
  const text =
    connection.value === 'offline'
      ? 'Offline: the service cannot be reached. Retrying…'
      : connection.value === 'unavailable'
        ? 'The service is unavailable (503). Retrying…'
        : streamState.value === 'reconnecting'
          ? 'Live updates paused: reconnecting…'
          : '';
  return (
    <p class={text ? 'status warn' : 'status'} role="status">
      {text}
    </p>
  );
}

/** What failed without a place of its own to say so (an unhandled rejection), until dismissed. */
function AppError() {
  const message = useSignal<string | null>(null);
  useEffect(() => {
    const show = (event: Event) => (message.value = (event as CustomEvent<string>).detail);
    document.addEventListener('app-error', show);
    return () => document.removeEventListener('app-error', show);
  }, []);
  useSignalEffect(() => {
    void place.value;
    message.value = null;
  });
  if (!message.value) return null;
  return (
    <div class="banner" role="alert">
      <span>Something went wrong: {message.value}</span>
      <button type="button" class="quiet" onClick={() => (message.value = null)}>
        Dismiss
      </button>
    </div>
  );
}
