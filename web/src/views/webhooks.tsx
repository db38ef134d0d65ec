/**
 * The webhooks, for whoever may manage them (the `admin` scope): each with its URL, events and whether it is on;
 * create one (its secret shown once), edit, switch off or on, delete. Also the parts the webhook and tokens views
 * share: the admin gate, the events picker and the value shown once with its copy button.
 */
import { Confirm } from '../parts/confirm.tsx';
import type { ComponentChildren } from 'preact';
import { useCallback, useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Dialog } from '../parts/dialog.tsx';
import { ErrorText, describe } from '../parts/error.tsx';
import { RecordList, RecordRow, RowAction } from '../parts/record-list.tsx';
import { useTitle } from '../parts/title.ts';
import { can } from '../session.ts';
import type { Webhook, WebhookRecord } from '../types.ts';

export const ALL_EVENTS = '*';

/** The view when the user may manage what it shows (the `admin` scope), else a plain word on why not. */
export function AdminOnly({ title, what, children }: { title: string; what: string; children: ComponentChildren }) {
  useTitle(title);
  if (can('admin')) return <>{children}</>;
  return (
    <section class="view narrow">
      <h1>{title}</h1>
      <p class="notice">
        {what} needs the <strong>admin</strong> scope, and your token does not have it. Ask an administrator for a token
        with the admin scope if you need to.
      </p>
      <p>
        <a href="/projects">Back to the projects</a>
      </p>
    </section>
  );
}

/** How a webhook's events read: `*` is "All events". */
export const eventsText = (events: readonly string[]) =>
  events.length === 0 ? 'None' : events.includes(ALL_EVENTS) ? 'All events' : events.join(', ');

interface EventType {
  readonly type: string;
  readonly description: string;
}

/** The types a webhook may subscribe to, as `GET /api/event-types` lists them (`*` last). */
function useEventTypes(): { types: EventType[] | null; error: string | null } {
  const [types, setTypes] = useState<EventType[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<{ data: EventType[] }>('GET', '/api/event-types')
      .then((answer) => setTypes(answer.data.data))
      .catch((err: unknown) => setError(describe(err)));
  }, []);
  return { types, error };
}

/** The event types as checkboxes; "All events" (`*`) checked stands for every one. */
function EventsPicker({ value, onChange }: { value: string[]; onChange: (events: string[]) => void }) {
  const { types, error } = useEventTypes();
  const all = value.includes(ALL_EVENTS);
  const toggle = (type: string, on: boolean) => {
    if (type === ALL_EVENTS) onChange(on ? [ALL_EVENTS] : []);
    else onChange(on ? [...value.filter((t) => t !== type), type] : value.filter((t) => t !== type));
  };
  return (
    <fieldset class="events-picker">
      <legend>Events</legend>
      <ErrorText error={error} />
      {types === null && !error && <p aria-busy="true">Loading the event types…</p>}
      {types?.map(({ type, description }) => (
        <label key={type} class="check" title={description}>
          <input
            type="checkbox"
            checked={type === ALL_EVENTS ? all : all || value.includes(type)}
            disabled={type !== ALL_EVENTS && all}
            onChange={(e) => toggle(type, e.currentTarget.checked)}
          />
          {type === ALL_EVENTS ? <strong>All events</strong> : <code>{type}</code>}
        </label>
      ))}
    </fieldset>
  );
}

/** A secret shown once: the value to select or copy, and the warning that it will not be shown again. */
export function ShownOnce({ label, value, id }: { label: string; value: string; id: string }) {
  const [copied, setCopied] = useState('');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value);
      setCopied('Copied to the clipboard');
    } catch {
      setCopied('The browser did not allow copying: select the text and copy it');
    }
  };
  return (
    <div class="shown-once">
      <p class="notice" id={`${id}-warning`}>
        Copy it now: it is shown this once and <strong>will not be shown again</strong>.
      </p>
      <label for={id}>{label}</label>
      <div class="copy-row">
        <input
          id={id}
          readOnly
          value={value}
          spellcheck={false}
          aria-describedby={`${id}-warning`}
          onFocus={(e) => e.currentTarget.select()}
        />
        <button type="button" onClick={() => void copy()}>
          Copy
        </button>
      </div>
      <p role="status" class="muted small">
        {copied}
      </p>
    </div>
  );
}

/** The webhook without its secret, as the app keeps it (a create's answer is the one that has it). */
const withoutSecret = (record: WebhookRecord | Webhook): Webhook => {
  const { secret: _secret, ...rest } = record as WebhookRecord;
  return rest;
};

export function Webhooks() {
  return (
    <AdminOnly title="Webhooks" what="Managing webhooks">
      <WebhookList />
    </AdminOnly>
  );
}

function WebhookList() {
  const [hooks, setHooks] = useState<Webhook[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState<Webhook | 'new' | null>(null);
  const [deleting, setDeleting] = useState<Webhook | null>(null);
  const [rowError, setRowError] = useState<{ id: string; text: string } | null>(null);

  const load = useCallback(async () => {
    try {
      const answer = await api<{ data: Webhook[] }>('GET', '/api/webhooks');
      setHooks(answer.data.data);
      setError(null);
    } catch (err) {
      setError(describe(err));
    }
  }, []);
  useEffect(() => void load(), [load]);

  const put = (hook: Webhook) =>
    setHooks(
      (list) =>
        list && (list.some((h) => h.id === hook.id) ? list.map((h) => (h.id === hook.id ? hook : h)) : [...list, hook]),
    );

  const switchActive = async (hook: Webhook) => {
    setRowError(null);
    try {
      const answer = await api<{ data: Webhook }>('PATCH', `/api/webhooks/${encodeURIComponent(hook.id)}`, {
        body: { active: !hook.active },
      });
      put(answer.data.data);
    } catch (err) {
      setRowError({ id: hook.id, text: describe(err) });
    }
  };

  return (
    <section class="view">
      <div class="view-head">
        <h1>Webhooks</h1>
        <button type="button" onClick={() => setEditing('new')}>
          New webhook
        </button>
      </div>
      <p class="muted">
        Each webhook receives a signed <code>POST</code> for every event it subscribes to (see the API docs on
        webhooks). Open one for its delivery log.
      </p>
      <ErrorText error={error} />
      <RecordList
        label="Webhooks"
        rows={hooks}
        error={error}
        loading="Loading the webhooks…"
        empty="No webhooks yet."
        row={(h) => (
          <RecordRow
            key={h.id}
            class="webhook-row"
            href={`/webhooks/${encodeURIComponent(h.id)}`}
            name={h.url}
            nameClass="url"
            description={h.description}
            facts={[
              { label: 'Events', value: eventsText(h.events) },
              {
                label: 'Active',
                value: <span class={h.active ? 'badge on' : 'badge off'}>{h.active ? 'On' : 'Off'}</span>,
              },
            ]}
          >
            <div class="row-actions">
              <RowAction
                label={h.active ? 'Switch off' : 'Switch on'}
                name={h.url}
                onClick={() => void switchActive(h)}
              />
              <RowAction label="Edit" name={h.url} onClick={() => setEditing(h)} />
              <RowAction label="Delete" name={h.url} danger onClick={() => setDeleting(h)} />
            </div>
            {rowError?.id === h.id && <ErrorText error={rowError.text} />}
          </RecordRow>
        )}
      />
      {editing && (
        <WebhookForm
          webhook={editing === 'new' ? null : editing}
          onClose={() => setEditing(null)}
          onSaved={(hook, created) => {
            put(withoutSecret(hook));
            if (!created) setEditing(null);
          }}
        />
      )}
      {deleting && (
        <DeleteWebhook
          webhook={deleting}
          onClose={() => setDeleting(null)}
          onDeleted={(id) => {
            setDeleting(null);
            setHooks((list) => list && list.filter((h) => h.id !== id));
          }}
        />
      )}
    </section>
  );
}

/**
 * A new webhook (`POST`; the answer's secret then shown once, in the same dialog) or a change to one (`PATCH` of its
 * URL, description, events and whether it is on).
 */
export function WebhookForm(props: {
  webhook: Webhook | null;
  onClose: () => void;
  onSaved: (webhook: WebhookRecord | Webhook, created: boolean) => void;
}) {
  const { webhook } = props;
  const [url, setUrl] = useState(webhook?.url ?? '');
  const [description, setDescription] = useState(webhook?.description ?? '');
  const [events, setEvents] = useState<string[]>(webhook ? [...webhook.events] : []);
  const [active, setActive] = useState(webhook?.active ?? true);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [secret, setSecret] = useState<string | null>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    try {
      const body = { url: url.trim(), description, events, active };
      if (webhook) {
        const answer = await api<{ data: Webhook }>('PATCH', `/api/webhooks/${encodeURIComponent(webhook.id)}`, {
          body,
        });
        props.onSaved(answer.data.data, false);
      } else {
        const answer = await api<{ data: WebhookRecord }>('POST', '/api/webhooks', { body });
        setSecret(answer.data.data.secret);
        props.onSaved(answer.data.data, true);
      }
    } catch (err) {
      setError(describe(err));
    } finally {
      setBusy(false);
    }
  };

  if (secret !== null)
    return (
      <Dialog title="Webhook created" onClose={props.onClose}>
        <p>Its deliveries are signed with this secret (see the API docs on webhooks for how a receiver checks them).</p>
        <ShownOnce id="webhook-secret" label="Signing secret" value={secret} />
        <div class="buttons">
          <button type="button" onClick={props.onClose}>
            Done
          </button>
        </div>
      </Dialog>
    );

  return (
    <Dialog title={webhook ? 'Edit webhook' : 'New webhook'} onClose={props.onClose}>
      <form class="stack" onSubmit={(e) => void submit(e)} noValidate>
        <label for="webhook-url">URL</label>
        <input
          id="webhook-url"
          type="url"
          inputMode="url"
          placeholder="https://hooks.example.com/pm"
          maxLength={2048}
          value={url}
          autoFocus
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
        <label for="webhook-description">Description</label>
        <input id="webhook-description" value={description} onInput={(e) => setDescription(e.currentTarget.value)} />
        <EventsPicker value={events} onChange={setEvents} />
        <label class="check">
          <input type="checkbox" checked={active} onChange={(e) => setActive(e.currentTarget.checked)} />
          Active (receives its events)
        </label>
        <ErrorText error={error} />
        <div class="buttons">
          <button type="submit" disabled={busy}>
            {webhook ? 'Save' : 'Create webhook'}
          </button>
          <button type="button" class="quiet" onClick={props.onClose}>
            Cancel
          </button>
        </div>
      </form>
    </Dialog>
  );
}

export function DeleteWebhook(props: { webhook: Webhook; onClose: () => void; onDeleted: (id: string) => void }) {
  const { webhook } = props;
  return (
    <Confirm
      title="Delete this webhook?"
      action="Delete webhook"
      onClose={props.onClose}
      onConfirm={async () => {
        await api('DELETE', `/api/webhooks/${encodeURIComponent(webhook.id)}`);
        props.onDeleted(webhook.id);
      }}
    >
      <p>
        <span class="url">{webhook.url}</span> stops receiving events: attempts still due are not made, and its delivery
        log can no longer be read here. This cannot be undone.
      </p>
    </Confirm>
  );
}
