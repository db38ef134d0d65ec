import { basename } from 'node:path';
import { recordValidator } from '../http/validation.ts';
import { urlProblems } from '../resources/webhooks/rules.ts';
import { COLLECTION_DEFS, COLLECTIONS, recordSchema, type CollectionName } from './format.ts';
import { NOT_AN_ARRAY, readDataFile, type Problem } from './read.ts';

export interface CheckOptions {
  /** How the file is named in each line; default: its base name (`fixtures.json`). */
  name?: string;
  /** At most this many lines (default 20); past it, the last line counts the problems left out. */
  maxLines?: number;
}

type Row = Record<string, unknown>;

/** A reference a record makes: `field` names a record of the collection `to` (null names none). */
interface Reference {
  readonly field: string;
  readonly to: (record: Row) => CollectionName | undefined;
}

/**
 * The references the API holds true of every record it keeps (a task's project exists, …). Notifications and
 * activity entries keep naming what was since deleted, as the API leaves them, so theirs are not checked.
 */
const REFERENCES: Partial<Record<CollectionName, readonly Reference[]>> = {
  projects: [{ field: 'teamId', to: () => 'teams' }],
  milestones: [{ field: 'projectId', to: () => 'projects' }],
  tasks: [{ field: 'projectId', to: () => 'projects' }],
  comments: [
    {
      field: 'targetId',
      to: (r) => (r.targetType === 'task' ? 'tasks' : r.targetType === 'project' ? 'projects' : undefined),
    },
  ],
  timeEntries: [{ field: 'taskId', to: () => 'tasks' }],
};

/** The collections the second pass reads: those with references, and those that may hold secrets. */
const SECOND_PASS = new Set<CollectionName>([...(Object.keys(REFERENCES) as CollectionName[]), 'webhooks', 'tokens']);

/** Rules the API enforces on a record alone, beyond its schema: each problem's field and message. */
const RULES: Partial<Record<CollectionName, (record: Row) => { field: string; message: string }[]>> = {
  teams: (team) => {
    const seen = new Set<unknown>();
    return (team.members as Row[]).flatMap((m, i) =>
      seen.has(m.username)
        ? [{ field: `members[${i}].username`, message: `"${String(m.username)}" is already a member` }]
        : (seen.add(m.username), []),
    );
  },
  webhooks: (webhook) => urlProblems(String(webhook.url)),
};

/**
 * Every problem of a data file, as lines `<file>: <place>: <what>` (`fixtures.json: tasks[3].projectId: no project
 * "proj_x"`), at most `maxLines`; none when it may be loaded. Two streaming passes: the first checks each record
 * against its schema and collects the ids (the only memory that grows with the file), the second each reference.
 */
export async function checkDataFile(path: string, options: CheckOptions = {}): Promise<string[]> {
  const lines = new Lines(options.name ?? basename(path), options.maxLines ?? 20);
  const validators = new Map(COLLECTIONS.map((c) => [c, recordValidator(recordSchema(c))]));
  const ids = new Map(COLLECTIONS.map((c) => [c, new Map<string, number>()]));
  let secrets = false;
  let fatal = false;
  // Collections that are not arrays: the references into them are not checked (their one line says enough).
  const broken = new Set<string>();
  const onProblem = (p: Problem) => {
    fatal ||= p.fatal === true;
    if (p.message === NOT_AN_ARRAY) broken.add(p.place);
    lines.add(p.place, p.message);
  };
  const onHeader = (key: string, value: unknown) => {
    if (key === 'secrets' && value === true) secrets = true;
    else if (key === 'secrets' && value !== false) lines.add(key, 'must be true or false');
    if (key === '$schema' && typeof value !== 'string') lines.add(key, 'must be a string (the URL of the schema)');
    if (key === 'exportedAt' && (typeof value !== 'string' || Number.isNaN(Date.parse(value))))
      lines.add(key, 'must be an ISO 8601 date-time, e.g. 2026-11-22T10:00:00.000Z');
  };

  for await (const { collection, index, record } of readDataFile(path, { onProblem, onHeader })) {
    const at = `${collection}[${index}]`;
    const details = validators.get(collection)!(record);
    for (const d of details) lines.add(d.field === 'record' ? at : join(at, d.field), wordsFor(collection, d.message));
    if (record === null || typeof record !== 'object' || Array.isArray(record)) continue;
    const row = record as Row;
    if (typeof row.id === 'string') {
      const { prefix } = COLLECTION_DEFS[collection];
      const seen = ids.get(collection)!;
      const problem = idProblem(row.id, prefix);
      if (problem) lines.add(`${at}.id`, `"${row.id}" ${problem}`);
      const first = seen.get(row.id);
      if (first !== undefined) lines.add(`${at}.id`, `"${row.id}" is already the id of ${collection}[${first}]`);
      else seen.set(detached(row.id), index);
    }
    if (details.length === 0) for (const d of RULES[collection]?.(row) ?? []) lines.add(join(at, d.field), d.message);
  }
  if (fatal) return lines.done();

  const second = { onProblem: () => undefined, only: SECOND_PASS };
  for await (const { collection, index, record } of readDataFile(path, second)) {
    if (record === null || typeof record !== 'object') continue;
    const row = record as Row;
    const at = `${collection}[${index}]`;
    for (const ref of REFERENCES[collection] ?? []) {
      const id = row[ref.field];
      const to = ref.to(row);
      if (typeof id !== 'string' || to === undefined || broken.has(to) || ids.get(to)!.has(id)) continue;
      lines.add(`${at}.${ref.field}`, `no ${COLLECTION_DEFS[to].kind} "${id}"`);
    }
    if (!secrets && collection === 'webhooks' && 'secret' in row)
      lines.add(`${at}.secret`, 'only in a file written with secrets ("secrets": true); leave it out for a fresh one');
    if (!secrets && collection === 'tokens' && index === 0)
      lines.add('tokens', 'only in a file written with secrets ("secrets": true)');
  }
  return lines.done();
}

/**
 * The same text in a string of its own. A string the parser cut from the text it read may be a slice of that
 * text, which keeps all of it alive as long as the slice lives: kept in the set of ids, a million ids held the whole
 * file (968 MB of heap for a file of 563 MB; 2.6 GB peak RSS). Joined to a space and cut again, the id refers to a
 * string of its own length only.
 */
const detached = (text: string) => ` ${text}`.slice(1);

/**
 * What is wrong with an id, if anything: it starts with its collection's prefix, and goes on with what a URL path
 * carries as it is (the ids the service makes are letters and digits), so that `/api/tasks/<id>` names it.
 */
function idProblem(id: string, prefix: string): string | undefined {
  if (!id.startsWith(`${prefix}_`)) return `must start with "${prefix}_"`;
  if (!/^[A-Za-z0-9_-]+$/.test(id.slice(prefix.length + 1)))
    return `must go on after "${prefix}_" with letters, digits, "_" or "-" only`;
  return undefined;
}

/** A message of the record checks, with the record's name where it helps. */
const wordsFor = (collection: CollectionName, message: string) =>
  message === 'is not a field of this record'
    ? `is not a field of ${withArticle(COLLECTION_DEFS[collection].kind)}`
    : message;

const withArticle = (kind: string) => `${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind}`;

/** `tasks[3]` and `projectId` → `tasks[3].projectId`; `members[1].role` and `tasks[3]` likewise. */
const join = (at: string, field: string) => (field.startsWith('[') ? `${at}${field}` : `${at}.${field}`);

/** The lines so far, and how many more problems there were. */
class Lines {
  private readonly lines: string[] = [];
  private more = 0;
  constructor(
    private readonly name: string,
    private readonly max: number,
  ) {}

  add(place: string, message: string): void {
    if (this.lines.length < this.max)
      this.lines.push(place ? `${this.name}: ${place}: ${message}` : `${this.name}: ${message}`);
    else this.more++;
  }

  done(): string[] {
    if (this.more === 0) return this.lines;
    const kept = this.lines.slice(0, this.max - 1);
    const left = this.more + 1;
    return [...kept, `${this.name}: and ${left} more problem${left === 1 ? '' : 's'}`];
  }
}
