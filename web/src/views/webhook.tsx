/**
 * One webhook (for the `admin` scope): what it is, "Send a ping", switch off or on, edit, delete; and its delivery
 * log, newest first, filtered by status and read a page at a time ("Load more"), each attempt redeliverable, and the
 * events whose delivery failed since a time redelivered in one request.
 */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { api, ApiError, query } from '../api.ts';
import { Choice } from '../parts/choice.tsx';
import { ErrorText, describe } from '../parts/error.tsx';
import { useTitle } from '../parts/title.ts';
import { navigate } from '../router.ts';
import type { DeliveryRecord, Webhook } from '../types.ts';
import { NotFound } from './not-found.tsx';
import { AdminOnly, DeleteWebhook, eventsText, WebhookForm } from './webhooks.tsx';
import { when } from '../parts/time.ts';

type Status = DeliveryRecord['status'];
const STATUS_LABEL: Readonly<Record<Status, string>> = {
  pending: 'Pending',
  succeeded: 'Succeeded',
  failed: 'Failed',
  refused: 'Refused',
};
const PAGE = 20;
/** How long after a ping or a redelivery the log is read again, to show how the attempt went. */
const SETTLE_MS = 1_000;

export function WebhookView({ webhookId }: { webhookId: string }) {
  return (
    <AdminOnly title="Webhook" what="Managing webhooks">
      <WebhookPage webhookId={webhookId} />
    </AdminOnly>
  );
}

function WebhookPage({ webhookId }: { webhookId: string }) {
  const [hook, setHook] = useState<Webhook | null | 'missing'>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState('');
  const [editing, setEditing] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [logVersion, setLogVersion] = useState(0);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  useTitle(hook === 'missing' ? null : hook ? `Webhook ${hook.url}` : 'Webhook');
  const path = `/api/webhooks/${encodeURIComponent(webhookId)}`;

  useEffect(() => {
    api<{ data: Webhook }>('GET', path)
      .then((answer) => setHook(answer.data.data))
      .catch((err: unknown) => {
        if (err instanceof ApiError && err.status === 404) setHook('missing');
        else setError(describe(err));
      });
  }, [path]);

  /** The log read again now, and once more when the attempts just made have had time to settle. */
  const refresh = () => {
    setLogVersion((n) => n + 1);
    clearTimeout(timer.current);
    timer.current = setTimeout(() => setLogVersion((n) => n + 1), SETTLE_MS);
  };

  const act = async (what: () => Promise<string>) => {
    setError(null);
    setSaid('');
    try {
      setSaid(await what());
      refresh();
    } catch (err) {
      setError(describe(err));
    }
  };

  if (hook === 'missing') return <NotFound what="webhook" />;
  if (!hook)
    return <section class="view">{error ? <ErrorText error={error} /> : <p aria-busy="true">Loading…</p>}</section>;

  const ping = () =>
    act(async () => {
      await api('POST', `${path}/ping`);
      return 'Ping sent: its attempt is at the top of the log.';
    });
  const switchActive = () =>
    act(async () => {
      const answer = await api<{ data: Webhook }>('PATCH', path, { body: { active: !hook.active } });
      setHook(answer.data.data);
      return answer.data.data.active ? 'Switched on.' : 'Switched off: it receives no events until switched on.';
    });

  return (
    <section class="view webhook-view">
      <div class="view-head">
        <div>
          <p class="crumbs">
            <a href="/webhooks">Webhooks</a>
          </p>
          <h1 class="url">{hook.url}</h1>
        </div>
        <div class="row-actions">
          <button type="button" onClick={() => void ping()}>
            Send a ping
          </button>
          <button type="button" class="quiet" onClick={() => void switchActive()}>
            {hook.active ? 'Switch off' : 'Switch on'}
          </button>
          <button type="button" class="quiet" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button type="button" class="quiet danger" onClick={() => setDeleting(true)}>
            Delete
          </button>
        </div>
      </div>
      <dl class="facts webhook-facts">
        <div>
          <dt>Events</dt>
          <dd>{eventsText(hook.events)}</dd>
        </div>
        <div>
          <dt>Active</dt>
          <dd>
            <span class={hook.active ? 'badge on' : 'badge off'}>{hook.active ? 'On' : 'Off'}</span>
          </dd>
        </div>
        {hook.description && (
          <div>
            <dt>Description</dt>
            <dd>{hook.description}</dd>
          </div>
        )}
        <div>
          <dt>Created</dt>
          <dd>{when(hook.createdAt)}</dd>
        </div>
      </dl>
      <ErrorText error={error} />
      <p role="status" class="muted">
        {said}
      </p>
      <Deliveries webhookId={webhookId} version={logVersion} onChanged={refresh} />
      {editing && (
        <WebhookForm
          webhook={hook}
          onClose={() => setEditing(false)}
          onSaved={(saved) => {
            setEditing(false);
            setHook(saved as Webhook);
          }}
        />
      )}
      {deleting && (
        <DeleteWebhook webhook={hook} onClose={() => setDeleting(false)} onDeleted={() => navigate('/webhooks')} />
      )}
    </section>
  );
}

/** A `datetime-local` value for a moment: the user's local time, to the minute. */
function localInput(at: Date): string {
  const local = new Date(at.getTime() - at.getTimezoneOffset() * 60_000);
  return local.toISOString().slice(0, 16);
}

function Deliveries(props: { webhookId: string; version: number; onChanged: () => void }) {
  const [status, setStatus] = useState<Status | ''>('');
  const [rows, setRows] = useState<DeliveryRecord[] | null>(null);
  const [total, setTotal] = useState(0);
  const [next, setNext] = useState<string | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [said, setSaid] = useState('');
  const [busy, setBusy] = useState(false);
  const [since, setSince] = useState(() => localInput(new Date(Date.now() - 24 * 3_600_000)));
  const path = `/api/webhooks/${encodeURIComponent(props.webhookId)}`;
  /** How many pages are shown: a reload reads as many again, so "Load more" is not undone by a refresh. */
  const shown = useRef(1);

  const read = useCallback(
    (cursor: string | undefined, limit: number) =>
      api<{ data: DeliveryRecord[]; nextCursor: string | null }>(
        'GET',
        `${path}/deliveries${query({ status, limit, cursor })}`,
      ),
    [path, status],
  );

  useEffect(() => {
    let live = true;
    read(undefined, PAGE * shown.current)
      .then((answer) => {
        if (!live) return;
        setRows(answer.data.data);
        setNext(answer.data.nextCursor);
        setTotal(Number(answer.headers.get('x-total-count') ?? answer.data.data.length));
        setError(null);
      })
      .catch((err: unknown) => live && setError(describe(err)));
    return () => {
      live = false;
    };
  }, [read, props.version]);

  const more = async () => {
    if (!next) return;
    setBusy(true);
    try {
      const answer = await read(next, PAGE);
      shown.current += 1;
      setRows((list) => [...(list ?? []), ...answer.data.data]);
      setNext(answer.data.nextCursor);
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  const redeliver = async (delivery: DeliveryRecord) => {
    setError(null);
    try {
      await api('POST', `${path}/deliveries/${encodeURIComponent(delivery.id)}/redeliver`);
      setSaid(`${delivery.eventType} sent again: the new attempt is at the top of the log.`);
      props.onChanged();
    } catch (err) {
      setError(describe(err));
    }
  };

  // One request: the service redelivers each event whose delivery failed among the attempts since then, once.
  const redeliverFailed = async (event: Event) => {
    event.preventDefault();
    const at = new Date(since);
    if (Number.isNaN(at.getTime())) {
      setError('Choose the date and time to redeliver from');
      return;
    }
    setError(null);
    setBusy(true);
    try {
      const answer = await api<{ data: DeliveryRecord[]; count: number }>(
        'POST',
        `${path}/redeliver-failed${query({ since: at.toISOString() })}`,
      );
      const n = answer.data.count;
      setSaid(
        n === 0
          ? `No delivery failed since ${when(at.toISOString())}: nothing was sent again.`
          : `${n} ${n === 1 ? 'event' : 'events'} whose delivery failed since ${when(at.toISOString())} sent again.`,
      );
      props.onChanged();
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  return (
    <section class="panel deliveries" aria-labelledby="deliveries-title">
      <div class="view-head">
        <h2 id="deliveries-title">
          Delivery log <span class="count">{total}</span>
        </h2>
        <div class="deliveries-tools">
          <label>
            <span>Status</span>
            <Choice
              value={status}
              labels={STATUS_LABEL}
              empty="Any"
              onChange={(v) => {
                shown.current = 1;
                setStatus(v);
              }}
            />
          </label>
          <button type="button" class="quiet" onClick={props.onChanged}>
            Refresh
          </button>
        </div>
      </div>
      <form class="redeliver-failed" onSubmit={(e) => void redeliverFailed(e)} noValidate>
        <label for="redeliver-since">Redeliver failed since</label>
        <input
          id="redeliver-since"
          type="datetime-local"
          value={since}
          onInput={(e) => setSince(e.currentTarget.value)}
        />
        <button type="submit" class="quiet" disabled={busy}>
          Redeliver failed
        </button>
      </form>
      <ErrorText error={error} />
      <p role="status" class="muted small">
        {said}
      </p>
      {rows === null && !error && <p aria-busy="true">Loading the deliveries…</p>}
      {rows?.length === 0 && <p class="muted">No attempts{status ? ` ${STATUS_LABEL[status].toLowerCase()}` : ''}.</p>}
      {rows && rows.length > 0 && (
        <div class="table-scroll">
          <table class="log">
            <caption class="visually-hidden">Delivery attempts, newest first</caption>
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Event</th>
                <th scope="col">Attempt</th>
                <th scope="col">Status</th>
                <th scope="col">Answer</th>
                <th scope="col">
                  <span class="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {rows.map((d) => (
                <tr key={d.id}>
                  <td>
                    <time dateTime={d.createdAt}>{when(d.createdAt)}</time>
                  </td>
                  <td>
                    <code>{d.eventType}</code>
                  </td>
                  <td>{d.attempt}</td>
                  <td>
                    <span class={`badge delivery-${d.status}`}>{STATUS_LABEL[d.status]}</span>
                  </td>
                  <td class="answer">
                    {d.responseStatus !== null && <span>HTTP {d.responseStatus}</span>}
                    {d.error && <span> {d.error}</span>}
                    {d.stopReason && <span class="muted"> ({d.stopReason})</span>}
                    {d.durationMs !== null && <span class="muted"> · {d.durationMs} ms</span>}
                  </td>
                  <td>
                    <button
                      type="button"
                      class="quiet small"
                      aria-label={`Redeliver ${d.eventType} (attempt ${d.attempt}, ${when(d.createdAt)})`}
                      onClick={() => void redeliver(d)}
                    >
                      Redeliver
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {next && (
        <div class="buttons">
          <button type="button" class="quiet" disabled={busy} onClick={() => void more()}>
            Load more
          </button>
          <span class="muted small">
            {rows?.length ?? 0} of {total} shown
          </span>
        </div>
      )}
    </section>
  );
}
