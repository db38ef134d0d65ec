/** The frame of every view: the header (who, where, whether the service answers) and the view the path names. */
import { useSignal, useSignalEffect } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { connection } from '../api.ts';
import { streamState } from '../live.ts';
import { followLink, place } from '../router.ts';
import { authMode, can, restoring, signOut, user } from '../session.ts';
import { NotificationsButton } from '../parts/notifications.tsx';
import { Shortcuts } from '../parts/shortcuts.tsx';
import { ThemeSwitch } from '../parts/theme.tsx';
import { viewOf } from '../routes.tsx';
import { NotFound } from './not-found.tsx';
import { SignIn } from './sign-in.tsx';

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
        {me && <MainNav />}
        <Status />
        <ThemeSwitch />
        {me && (
          <div class="me">
            <NotificationsButton />
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
      {me && <Shortcuts />}
      <main id="main" tabIndex={-1}>
        {me ? <View /> : restoring.value ? <p aria-busy="true">Signing in…</p> : <SignIn />}
      </main>
    </div>
  );
}

/** The app's sections; those the user's scopes cannot use are left out (webhooks and tokens are `admin`'s). */
function MainNav() {
  const path = place.value.path;
  const links: [string, string][] = [
    ['/projects', 'Projects'],
    ['/teams', 'Teams'],
    ['/activity', 'Activity'],
  ];
  if (can('admin')) links.push(['/webhooks', 'Webhooks']);
  if (can('admin') && authMode === 'token') links.push(['/tokens', 'Tokens']);
  return (
    <nav aria-label="Main">
      {links.map(([href, label]) => (
        <a key={href} href={href} aria-current={path === href || path.startsWith(`${href}/`) ? 'page' : undefined}>
          {label}
        </a>
      ))}
    </nav>
  );
}

function View() {
  return viewOf(place.value.path) ?? <NotFound />;
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
