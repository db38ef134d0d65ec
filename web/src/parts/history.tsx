/** A record's history from the activity log: who changed what, when (newest first). */
import { useEffect, useState } from 'preact/hooks';
import { api, query } from '../api.ts';
import type { ActivityEntry } from '../types.ts';
import { ErrorText, describe } from './error.tsx';
import { when } from './time.ts';

const SHOWN = 50;

export function History({ resourceId, version }: { resourceId: string; version: number }) {
  const [entries, setEntries] = useState<ActivityEntry[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    api<{ data: ActivityEntry[] }>('GET', `/api/activity-log${query({ resourceId, limit: SHOWN })}`)
      .then((answer) => {
        setEntries(answer.data.data);
        setError(null);
      })
      .catch((err: unknown) => setError(describe(err)));
  }, [resourceId, version]);
  return (
    <section class="history" aria-labelledby="history-title">
      <h2 id="history-title">History</h2>
      <ErrorText error={error} />
      {entries === null && !error && <p aria-busy="true">Loading the history…</p>}
      {entries?.length === 0 && <p class="muted">Nothing recorded yet.</p>}
      <ol class="history-list">
        {entries?.map((e) => (
          <li key={e.id}>
            <strong>{e.actor}</strong> <span>{e.summary || e.action}</span>{' '}
            <time class="muted small" dateTime={e.timestamp}>
              {when(e.timestamp)}
            </time>
          </li>
        ))}
      </ol>
    </section>
  );
}
