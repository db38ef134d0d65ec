/**
 * The app's location: one signal the views read, changed by links (`navigate`) and the browser's back and forward.
 * Paths are the service's own (`/projects/proj_001`), so a reload or a shared link opens the same view.
 */
import { signal } from '@preact/signals';

export interface Place {
  readonly path: string;
  readonly params: URLSearchParams;
}

const here = (): Place => ({
  path: location.pathname.replace(/\/+$/, '') || '/',
  params: new URLSearchParams(location.search),
});

export const place = signal<Place>(here());
addEventListener('popstate', () => (place.value = here()));

/** Goes to `to` (a path with its query): a new history entry, or the current one replaced. */
export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  place.value = here();
}

/** A click on a link of the app's that the app handles itself (not one meant for a new tab or window). */
export function followLink(event: MouseEvent): void {
  if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey)
    return;
  const anchor = (event.target as Element).closest('a');
  if (!anchor || anchor.target || anchor.origin !== location.origin || anchor.hasAttribute('download')) return;
  // A link within the page (`#main`) is the browser's to follow.
  if (anchor.getAttribute('href')?.startsWith('#')) return;
  // The service's own pages and files are not the app's views.
  if (/^\/(api|docs|assets)(\/|$)/.test(anchor.pathname)) return;
  event.preventDefault();
  navigate(anchor.pathname + anchor.search);
}
