import type { Writable } from 'node:stream';
import type { TObject } from 'typebox';
import type { Store } from '../store/store.ts';
import { COLLECTION_DEFS, COLLECTIONS, FORMAT, type CollectionName } from './format.ts';

export interface ExportOptions {
  /** Webhook secrets and token hashes (`tokens`) too: the file is then a secret itself. */
  readonly secrets: boolean;
  /** The instant the file says it was written (`exportedAt`), in `toISOString()` form. */
  readonly exportedAt: string;
}

/** The fields that only a file with secrets holds, by collection. */
const SECRET_FIELDS: Partial<Record<CollectionName, string>> = { webhooks: 'secret' };

/**
 * Writes the whole store as a data file (format.ts) to `out`, read from one snapshot (`Store.snapshot`): every
 * record as the API shows it (its schema's fields, in its schema's order), the collections in load order, the
 * activity log oldest first, one record a line. Streamed a part at a time, waiting whenever `out` is full, so that
 * memory stays bounded however large the store. Without `secrets`, no webhook secret and no `tokens`.
 * Resolves once everything is written (`out` is not ended); rejects when the store fails or `out` does.
 */
export async function writeDataFile(store: Store, out: Writable, options: ExportOptions): Promise<void> {
  const collections = COLLECTIONS.filter((name) => options.secrets || name !== 'tokens');
  const header = { format: FORMAT, exportedAt: options.exportedAt, ...(options.secrets ? { secrets: true } : {}) };
  const write = async (text: string) => {
    // A reader that went away (a client gone, a closed pipe) ends the export and lets its snapshot go.
    if (out.destroyed || out.writableEnded) throw new Error('the output closed before the export was written');
    if (!out.write(text)) await drained(out);
  };
  await store.snapshot(async (snapshot) => {
    await write(JSON.stringify(header).slice(0, -1));
    for (const name of collections) {
      const shape = fieldsOf(name, options.secrets);
      await write(`,\n${JSON.stringify(name)}: [`);
      let first = true;
      for await (const part of snapshot.read(COLLECTION_DEFS[name].store as 'tasks')) {
        const lines = part.map((record) => JSON.stringify(shape(record as unknown as Record<string, unknown>)));
        await write(`${first ? '\n' : ',\n'}${lines.join(',\n')}`);
        first = false;
      }
      await write(first ? ']' : '\n]');
    }
    await write('\n}\n');
  });
}

/**
 * A record with the fields the file holds of it, in its schema's order (whatever order the store keeps). A free-form
 * object (an activity entry's `metadata`) has its keys sorted: the SQL stores keep it as `jsonb`, which orders keys
 * its own way, so that the same records make the same file from every store.
 */
function fieldsOf(
  name: CollectionName,
  secrets: boolean,
): (record: Record<string, unknown>) => Record<string, unknown> {
  const secret = secrets ? undefined : SECRET_FIELDS[name];
  const keys = Object.keys((COLLECTION_DEFS[name].schema as TObject).properties).filter((k) => k !== secret);
  const free = FREE_FORM[name];
  return (record) => {
    const out: Record<string, unknown> = {};
    for (const key of keys) if (record[key] !== undefined) out[key] = record[key];
    if (free !== undefined && out[free] !== undefined) out[free] = sortedKeys(out[free]);
    return out;
  };
}

/** The field of a collection's records that holds any JSON object. */
const FREE_FORM: Partial<Record<CollectionName, string>> = { activityLog: 'metadata' };

function sortedKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortedKeys);
  if (value === null || typeof value !== 'object') return value;
  const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Object.fromEntries(entries.map(([k, v]) => [k, sortedKeys(v)]));
}

/** Resolves when `out` takes more; rejects when it closes first. */
function drained(out: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    const settle = (error?: Error) => {
      out.off('drain', onDrain);
      out.off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => settle();
    const onClose = () => settle(new Error('the output closed before the export was written'));
    out.on('drain', onDrain);
    out.on('close', onClose);
  });
}
