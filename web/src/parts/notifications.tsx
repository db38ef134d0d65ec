/**
 * The user's notifications: the header's button (its name says the unread count, `Notifications, 3 unread`, kept
 * current from the event stream), the panel it opens, and the list both it and `/notifications` show, newest first.
 * Opening one marks it read; so does its button; `Mark all read` marks every one of the user's.
 */
import { signal } from '@preact/signals';
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, query } from '../api.ts';
import { useLive } from '../live.ts';
import { navigate } from '../router.ts';
import { user } from '../session.ts';
import type { Notification } from '../types.ts';
import { Dialog } from './dialog.tsx';
import { resolvePage } from './links.ts';
import { ErrorText, describe } from './error.tsx';
import { when } from './time.ts';

/** The signed-in user's unread count; null until read. */
export const unread = signal<number | null>(null);
/** Bumped at every change to the user's notifications, so that lists on screen read them again. */
const changed = signal(0);

const mine = () => user.value?.username ?? '';
const RECOUNT_MS = 150;

async function count(): Promise<void> {
  const answer = await api<unknown>('GET', `/api/notifications${query({ username: mine(), read: 'false', limit: 1 })}`);
  unread.value = Number(answer.headers.get('x-total-count') ?? 0);
}

const markRead = (id: string) => api('PATCH', `/api/notifications/${encodeURIComponent(id)}/read`);

/** The header's button and its panel. */
export function NotificationsButton() {
  const [open, setOpen] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => {
    void count().catch(() => {});
    return () => clearTimeout(timer.current);
  }, []);
  useLive(
    undefined,
    {
      onReset: () => void count().catch(() => {}),
      onEvent: ({ data }) => {
        if (data.username !== mine()) return;
        clearTimeout(timer.current);
        timer.current = setTimeout(() => {
          changed.value++;
          void count().catch(() => {});
        }, RECOUNT_MS);
      },
    },
    'notification.*',
  );
  const n = unread.value;
  return (
    <>
      <button
        type="button"
        class="quiet bell"
        aria-label={`Notifications, ${n ?? 0} unread`}
        aria-haspopup="dialog"
        onClick={() => setOpen(true)}
      >
        Notifications {n ? <span class="pill">{n}</span> : null}
      </button>
      {open && (
        <Dialog title="Notifications" onClose={() => setOpen(false)}>
          <NotificationList limit={20} onOpen={() => setOpen(false)} />
          <p>
            <a href="/notifications" onClick={() => setOpen(false)}>
              All notifications
            </a>
          </p>
          <div class="buttons">
            <button type="button" class="quiet" onClick={() => setOpen(false)}>
              Close
            </button>
          </div>
        </Dialog>
      )}
    </>
  );
}

/** The user's notifications, newest first, `limit` at a time (`Load more` for the next). */
export function NotificationList({ limit, onOpen }: { limit: number; onOpen?: () => void }) {
  const [items, setItems] = useState<Notification[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const params = { username: mine(), sort: '-createdAt', limit };

  const load = useCallback(async () => {
    try {
      const answer = await api<{ data: Notification[]; nextCursor: string | null }>(
        'GET',
        `/api/notifications${query(params)}`,
      );
      setItems(answer.data.data);
      setNext(answer.data.nextCursor);
      setError(null);
    } catch (err) {
      setError(describe(err));
    }
  }, [params.username, limit]);
  useEffect(() => void load(), [load, changed.value]);

  const more = async () => {
    try {
      const answer = await api<{ data: Notification[]; nextCursor: string | null }>(
        'GET',
        `/api/notifications${query({ ...params, cursor: next ?? undefined })}`,
      );
      setItems((list) => [...(list ?? []), ...answer.data.data]);
      setNext(answer.data.nextCursor);
    } catch (err) {
      setError(describe(err));
    }
  };
  const read = async (id: string) => {
    try {
      await markRead(id);
      setItems((list) => list && list.map((n) => (n.id === id ? { ...n, read: true } : n)));
      await count();
    } catch (err) {
      setError(describe(err));
    }
  };
  const readAll = async () => {
    try {
      await api('PATCH', `/api/notifications/read-all${query({ username: mine() })}`);
      setItems((list) => list && list.map((n) => ({ ...n, read: true })));
      await count();
    } catch (err) {
      setError(describe(err));
    }
  };
  const open = async (n: Notification) => {
    try {
      const to = n.resourceType && n.resourceId ? await resolvePage(n.resourceType, n.resourceId) : null;
      if (!n.read) await read(n.id);
      onOpen?.();
      if (to) navigate(to);
    } catch (err) {
      setError(describe(err));
    }
  };

  return (
    <div class="notifications">
      <ErrorText error={error} />
      {items === null && !error && <p aria-busy="true">Loading…</p>}
      {items?.length === 0 && (
        <p class="muted">
          Nothing yet. You are told here when a task is assigned to you, a comment is added to your task or your team's
          project, a milestone is reached or a project changes.
        </p>
      )}
      {items && items.length > 0 && (
        <>
          <div class="buttons">
            <button type="button" class="quiet" onClick={() => void readAll()} disabled={!items.some((n) => !n.read)}>
              Mark all read
            </button>
          </div>
          <ul class="notification-list">
            {items.map((n) => (
              <li key={n.id} class={n.read ? 'read' : 'unread'}>
                <p>
                  {!n.read && <span class="visually-hidden">Unread: </span>}
                  {n.resourceId ? (
                    <button type="button" class="link" onClick={() => void open(n)}>
                      {n.message}
                    </button>
                  ) : (
                    n.message
                  )}
                </p>
                <p class="muted small">
                  <time dateTime={n.createdAt}>{when(n.createdAt)}</time>
                  {!n.read && (
                    <>
                      {' · '}
                      <button type="button" class="link" onClick={() => void read(n.id)}>
                        Mark read<span class="visually-hidden">: {n.message}</span>
                      </button>
                    </>
                  )}
                </p>
              </li>
            ))}
          </ul>
          {next && (
            <button type="button" class="quiet" onClick={() => void more()}>
              Load more
            </button>
          )}
        </>
      )}
    </div>
  );
}
