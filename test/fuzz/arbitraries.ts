/**
 * What the fuzzer sends: every route of the service, valid requests built from the routes' own TypeBox schemas,
 * and the hostile values they are mutated with (wrong types, missing and extra fields, enormous and empty strings,
 * unicode and control characters, deep nesting, edge numbers, prototype keys, duplicate query parameters,
 * malformed percent-encoding, odd content types and headers).
 */
import fc from 'fast-check';
import type { TObject } from 'typebox';
import { ActivityCreate, ActivityQuery } from '../../src/resources/activity-log/schema.ts';
import { CommentCreate, CommentPatch, CommentQuery } from '../../src/resources/comments/schema.ts';
import { MilestoneCreate, MilestonePatch, MilestoneQuery } from '../../src/resources/milestones/schema.ts';
import { NotificationCreate, NotificationQuery, ReadAllQuery } from '../../src/resources/notifications/schema.ts';
import { ProjectInput, ProjectQuery } from '../../src/resources/projects/schema.ts';
import { TaskCreate, TaskPatch, TaskQuery } from '../../src/resources/tasks/schema.ts';
import { TeamCreate, TeamPatch, TeamQuery } from '../../src/resources/teams/schema.ts';
import { TimeEntryCreate, TimeEntryPatch, TimeEntryQuery } from '../../src/resources/time-entries/schema.ts';
import { TokenCreate, TokenQuery } from '../../src/resources/tokens/schema.ts';
import { WebhookCreate, WebhookPatch, WebhookQuery } from '../../src/resources/webhooks/schema.ts';
import { SUBSCRIBABLE } from '../../src/model/event-types.ts';
import type { BodySpec, HeaderValue, RawValue, Ref, RefKind, RequestSpec } from './harness.ts';
import { VIEW_PATHS } from '../../src/web/index.ts';

// ------------------------------------------------------------------------------------------------ routes

export interface RouteDef {
  method: string;
  /**
   * `/api/tasks/:task`: a `:kind` segment names an existing record of that kind; `:raw` (a wildcard) and `:name` (a
   * parameter of that name) are any text.
   */
  pattern: string;
  body?: TObject;
  query?: TObject;
}

const crud = (
  path: string,
  kind: RefKind,
  o: { query: TObject; create?: TObject; update?: [string, TObject]; remove?: boolean },
): RouteDef[] => [
  { method: 'GET', pattern: path, query: o.query },
  { method: 'GET', pattern: `${path}/:${kind}` },
  ...(o.create ? [{ method: 'POST', pattern: path, body: o.create }] : []),
  ...(o.update ? [{ method: o.update[0], pattern: `${path}/:${kind}`, body: o.update[1] }] : []),
  ...(o.remove ? [{ method: 'DELETE', pattern: `${path}/:${kind}` }] : []),
];

/** Every route the service serves (test/fuzz/routes.test.ts checks this list against the app's own). */
export const ROUTES: RouteDef[] = [
  { method: 'GET', pattern: '/api/health' },
  { method: 'GET', pattern: '/api/health/ready' },
  { method: 'GET', pattern: '/api/openapi.json' },
  { method: 'GET', pattern: '/api/export.schema.json' },
  { method: 'GET', pattern: '/api/export' },
  ...crud('/api/projects', 'proj', {
    query: ProjectQuery,
    create: ProjectInput,
    update: ['PUT', ProjectInput],
    remove: true,
  }),
  ...crud('/api/tasks', 'task', { query: TaskQuery, create: TaskCreate, update: ['PATCH', TaskPatch], remove: true }),
  ...crud('/api/teams', 'team', { query: TeamQuery, create: TeamCreate, update: ['PATCH', TeamPatch], remove: true }),
  ...crud('/api/comments', 'cmt', {
    query: CommentQuery,
    create: CommentCreate,
    update: ['PATCH', CommentPatch],
    remove: true,
  }),
  ...crud('/api/milestones', 'ms', {
    query: MilestoneQuery,
    create: MilestoneCreate,
    update: ['PATCH', MilestonePatch],
    remove: true,
  }),
  ...crud('/api/time-entries', 'te', {
    query: TimeEntryQuery,
    create: TimeEntryCreate,
    update: ['PATCH', TimeEntryPatch],
    remove: true,
  }),
  ...crud('/api/webhooks', 'wh', {
    query: WebhookQuery,
    create: WebhookCreate,
    update: ['PATCH', WebhookPatch],
    remove: true,
  }),
  { method: 'GET', pattern: '/api/webhooks/:wh/deliveries' },
  { method: 'POST', pattern: '/api/webhooks/:wh/deliveries/:dlv/redeliver' },
  { method: 'POST', pattern: '/api/webhooks/:wh/ping' },
  { method: 'POST', pattern: '/api/webhooks/:wh/redeliver-failed' },
  { method: 'GET', pattern: '/api/event-types' },
  ...crud('/api/activity-log', 'act', { query: ActivityQuery, create: ActivityCreate }),
  ...crud('/api/notifications', 'notif', { query: NotificationQuery, create: NotificationCreate, remove: true }),
  { method: 'PATCH', pattern: '/api/notifications/:notif/read' },
  { method: 'PATCH', pattern: '/api/notifications/read-all', query: ReadAllQuery },
  ...crud('/api/tokens', 'tok', { query: TokenQuery, create: TokenCreate, remove: true }),
  { method: 'GET', pattern: '/' },
  { method: 'GET', pattern: '/docs' },
  { method: 'GET', pattern: '/docs/json' },
  { method: 'GET', pattern: '/docs/yaml' },
  { method: 'GET', pattern: '/docs/static/index.html' },
  { method: 'GET', pattern: '/docs/static/swagger-initializer.js' },
  { method: 'GET', pattern: '/docs/static/:raw' },
  { method: 'GET', pattern: '/api/session' },
  { method: 'GET', pattern: '/metrics' },
  // The web app: its page at each of its own paths (`/` is the index above), its built assets by name.
  ...VIEW_PATHS.filter((path) => path !== '/').map((path) => ({
    method: 'GET' as const,
    pattern: path.replace(/\*$/, ':raw'),
  })),
  { method: 'GET', pattern: '/assets/:name' },
];

export const BODY_ROUTES = ROUTES.filter((r) => r.body);
export const QUERY_ROUTES = ROUTES.filter((r) => r.query);
export const API_ROUTES = ROUTES.filter((r) => r.pattern.startsWith('/api'));

/** The route's pattern as Fastify writes it (`:id`, `:deliveryId`), for the coverage check. */
export function fastifyPattern(pattern: string): string {
  return pattern
    .replace(/:dlv\b/, ':deliveryId')
    .replace(/:(?!deliveryId\b|name\b)[a-z]+/g, (m) => (m === ':raw' ? '*' : ':id'));
}

const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'SEARCH', 'PROPFIND'];

// ------------------------------------------------------------------------------------------------ hostile values

/** Strings that are hard on parsers, validators, storage and serializers. */
const NASTY_STRINGS = [
  '',
  ' ',
  '\t',
  '\n',
  '\r\n',
  '\u0000',
  '\u0001\u0002\u001f',
  '\u007f',
  '\u0085',
  '\u00a0',
  '\u2028\u2029',
  '\ufeff',
  '\u202e\u202d',
  '\ud800',
  '\udfff',
  '\udbff\udfff',
  '𝕏',
  '👩‍👩‍👧‍👦',
  'e\u0301',
  '\u0308\u0308\u0308',
  'ﷺ',
  '\uffff',
  '<script>alert(1)</script>',
  "'; DROP TABLE tasks; --",
  '${7*7}',
  '{{7*7}}',
  '../../etc/passwd',
  '%00',
  '%s%n',
  'null',
  'undefined',
  'true',
  'NaN',
  'Infinity',
  '-0',
  '1e309',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'alice',
  'task_001',
  'proj_001',
  '*',
  'todo',
  'reached',
];

/** Numbers written as JSON text at and beyond the edges, and their string look-alikes. */
const EDGE_NUMBERS = [
  '0',
  '-0',
  '0.0',
  '-0.0',
  '1',
  '-1',
  '0.1',
  '0.0000001',
  '1e-7',
  '1e-400',
  '5e-324',
  '-5e-324',
  '24',
  '24.0',
  '24.000000000000001',
  '24.0000001',
  '23.999999999999996',
  '25',
  '100',
  '1E2',
  '1e2',
  '1.5e1',
  '9007199254740991',
  '9007199254740993',
  '-9007199254740993',
  '123456789012345678901234567890',
  '1.7976931348623157e308',
  '1e308',
  '1e309',
  '-1e309',
  '2e308',
  '"NaN"',
  '"Infinity"',
  '"-Infinity"',
  '"1e309"',
  '"-0"',
  '"2"',
  '"0x10"',
  '"1_000"',
  '" 1"',
];

const WRONG_TYPES = [
  'null',
  'true',
  'false',
  '0',
  '-1',
  '[]',
  '{}',
  '""',
  '" "',
  '[null]',
  '[[]]',
  '{"a":1}',
  '[1,"a",null]',
];

const PROTO_VALUES = [
  '{"__proto__":{"polluted":1}}',
  '{"constructor":{"prototype":{"polluted":1}}}',
  '{"prototype":{"polluted":1}}',
  '{"__proto__":null}',
  '[{"__proto__":{"polluted":1}}]',
  '{"constructor":{"prototype":null}}',
  '{"constructor":1}',
  '{"a":{"b":{"__proto__":{"polluted":1}}}}',
  '{"\\u005f_proto__":{"polluted":1}}',
  '{"toString":1,"valueOf":"x","hasOwnProperty":null}',
];

const DATES = [
  '"2026-11-22"',
  '"2026-02-29"',
  '"2028-02-29"',
  '"2026-02-30"',
  '"2026-13-01"',
  '"2026-00-10"',
  '"0000-00-00"',
  '"2026-1-1"',
  '"26-11-22"',
  '"+275760-09-13"',
  '"2026-11-22T10:00:00Z"',
  '"2026-11-22 "',
  '"9999-12-31"',
  '"1970-01-01"',
];

const URLS = [
  '"https://hooks.example.com/pm"',
  '"http://example.invalid/x"',
  '"javascript:alert(1)"',
  '"http://"',
  '"https://:80"',
  '"http://[::1]/"',
  '"http://a:99999/"',
  '"ftp://example.com/x"',
  '"HTTP://EXAMPLE.COM"',
  '"http://169.254.169.254/latest"',
  '"//example.com"',
  '"http://x/\\u0000"',
  '"http://user:pass@example.com/"',
  '"http://0x7f.1/"',
  '"http://%41/"',
  '"http://example.com/' + 'a'.repeat(2100) + '"',
  '"https://例え.テスト/"',
  '"data:text/plain,hi"',
  '"file:///etc/passwd"',
];

/** Text that is not JSON at all, to appear where a value should be (the whole body becomes unparseable). */
const NOT_JSON = [
  'NaN',
  'Infinity',
  '-Infinity',
  'undefined',
  "'x'",
  '01',
  '.5',
  '+1',
  '0x10',
  '1.',
  '[1,]',
  '{,}',
  '"\\x41"',
  '"\\u12"',
  '"unterminated',
  '/*c*/1',
  '"a\nb"',
  'tru',
  'nul',
  '{"a"}',
  '[',
  '}',
];

const nest = (depth: number, kind: 'array' | 'object') =>
  kind === 'array' ? `${'['.repeat(depth)}${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;

const jsonString = (s: string) => JSON.stringify(s);

/** The string with lone surrogates replaced (encodeURIComponent throws on them; they cannot be sent in a URL). */
const wellFormed = (s: string) =>
  s.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');

/** A JSON value (as text) that no field expects, or expects only in a narrow form. */
export const hostileValue: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...WRONG_TYPES) },
  { weight: 3, arbitrary: fc.constantFrom(...EDGE_NUMBERS) },
  { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS).map(jsonString) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }).map(jsonString) },
  { weight: 1, arbitrary: fc.constantFrom(101, 201, 2049, 10_001, 100_000).map((n) => jsonString('x'.repeat(n))) },
  { weight: 1, arbitrary: fc.constantFrom(100, 101, 201).map((n) => jsonString('😀'.repeat(n))) },
  {
    weight: 1,
    arbitrary: fc
      .noBias(fc.constantFrom(2, 63, 64, 65, 20_000, 100_000))
      .chain((d) => fc.constantFrom(nest(d, 'array'), nest(d, 'object'))),
  },
  { weight: 2, arbitrary: fc.constantFrom(...PROTO_VALUES) },
  { weight: 1, arbitrary: fc.constantFrom(...DATES) },
  { weight: 1, arbitrary: fc.constantFrom(...URLS) },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)) },
  { weight: 1, arbitrary: fc.constantFrom(...NOT_JSON) },
);

/** Property names no body schema declares, or declares as read-only, or that mean something to JavaScript. */
export const hostileKey: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '__proto__',
      'constructor',
      'prototype',
      'toString',
      'hasOwnProperty',
      'valueOf',
      '__defineGetter__',
      'then',
      'length',
      '$ref',
      'id',
      'createdAt',
      'updatedAt',
      'secret',
      'read',
      'reachedAt',
      'memberCount',
      'projectId',
      'taskId',
      'timestamp',
      'targetType',
      'author',
      '',
      ' ',
      '0',
      'a.b',
      'members[0]',
      '\u0000',
      '\ud800',
      '👩‍👩‍👧',
    ),
  },
  { weight: 1, arbitrary: fc.constant('k'.repeat(10_000)) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) },
);

/** Bodies that are not a JSON object: empty, scalars, arrays, broken or huge text, deep nesting, raw bytes. */
export const hostileBody: fc.Arbitrary<BodySpec> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .constantFrom(
        '',
        ' ',
        '\n\t ',
        '[]',
        '[1,2]',
        '"x"',
        '42',
        '-0',
        '1e309',
        'null',
        'true',
        '{',
        '{"a":1',
        '{"a":}',
        "{'a':1}",
        '{"a":1}garbage',
        '{"a":1}{"b":2}',
        '\ufeff{}',
        '{"a":1,}',
        '\u0000',
        'undefined',
        '{"__proto__":{"polluted":1}}',
        '{"constructor":{"prototype":{"polluted":1}}}',
        '{"a":1,"a":2}',
        '{}',
        '{"":""}',
        '[{}]',
      )
      .map((text): BodySpec => ({ kind: 'text', text })),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(65, 100, 10_000, 300_000)
      .chain((d) => fc.constantFrom(nest(d, 'array'), `{"metadata":${nest(d, 'object')}}`))
      .map((text): BodySpec => ({ kind: 'text', text })),
  },
  { weight: 1, arbitrary: fc.constant<BodySpec>({ kind: 'text', text: `{"name":"${'x'.repeat(1_100_000)}"}` }) },
  {
    weight: 1,
    arbitrary: fc.constant<BodySpec>({ kind: 'text', text: JSON.stringify({ name: 'x'.repeat(1_040_000) }) }),
  },
  { weight: 2, arbitrary: fc.uint8Array({ maxLength: 200 }).map((bytes): BodySpec => ({ kind: 'bytes', bytes })) },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        [0xff],
        [0xfe, 0xff],
        [0xc0, 0xaf],
        [0xed, 0xa0, 0x80],
        [0xf4, 0x90, 0x80, 0x80],
        [0xe2, 0x82],
        [0x00],
      )
      .map((bad): BodySpec => {
        const head = Buffer.from('{"name":"a');
        const tail = Buffer.from('","title":"b","username":"c"}');
        return { kind: 'bytes', bytes: new Uint8Array(Buffer.concat([head, Buffer.from(bad), tail])) };
      }),
  },
);

// ------------------------------------------------------------------------------------------------ valid values

type Schema = Record<string, unknown> & { type?: string | string[]; properties?: Record<string, Schema> };

const USERNAMES = ['alice', 'bob', 'carol', 'dana', 'erin', 'frank', 'grace', 'heidi', 'fuzzer'];
const REF_FIELDS: Record<string, RefKind> = { projectId: 'proj', taskId: 'task', teamId: 'team' };
const USERNAME_FIELDS = new Set(['username', 'assignee', 'author', 'actor']);

const ref = (kind: RefKind): fc.Arbitrary<Ref> => fc.nat(1000).map((n) => ({ ref: kind, n }));

const date = fc
  .record({
    y: fc.integer({ min: 2020, max: 2030 }),
    m: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 28 }),
  })
  .map(({ y, m, d }) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`);

/** A value the schema accepts (references point at existing records, most of the time). */
export function validValue(key: string, schema: Schema): fc.Arbitrary<RawValue> {
  const types = [schema.type ?? []].flat() as string[];
  if (types.length > 1 && types.includes('null')) {
    const inner = {
      ...schema,
      type: types.find((t) => t !== 'null'),
      ...(Array.isArray(schema.enum) ? { enum: (schema.enum as unknown[]).filter((v) => v !== null) } : {}),
    };
    return fc.oneof({ weight: 4, arbitrary: validValue(key, inner) }, { weight: 1, arbitrary: fc.constant('null') });
  }
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]).map((v) => JSON.stringify(v)));
  const kind = REF_FIELDS[key];
  if (kind)
    return fc.oneof({ weight: 9, arbitrary: ref(kind) }, { weight: 1, arbitrary: fc.constant(`"${kind}_missing"`) });
  if (key === 'targetId') return fc.oneof(ref('task'), ref('proj'));
  switch (types[0]) {
    case 'string': {
      if (schema.format === 'date') return date.map(jsonString);
      if (schema.format === 'uri')
        return fc.constantFrom('https://hooks.example.com/fuzz', 'http://receiver.invalid/hook').map(jsonString);
      if (USERNAME_FIELDS.has(key)) return fc.constantFrom(...USERNAMES).map(jsonString);
      const max = Math.min(Number(schema.maxLength ?? 40), 40);
      return fc
        .string({ minLength: 1, maxLength: max })
        .filter((s) => /\S/.test(s))
        .map(jsonString);
    }
    case 'number':
      return fc.oneof(
        fc.constantFrom('0.25', '0.5', '1', '1.5', '8', '24'),
        fc.double({ min: 0, max: 24, minExcluded: true, noNaN: true }).map((n) => JSON.stringify(n)),
      );
    case 'integer':
      return fc.integer({ min: Number(schema.minimum ?? 0), max: Number(schema.maximum ?? 1000) }).map(String);
    case 'boolean':
      return fc.constantFrom('true', 'false');
    case 'array': {
      if (key === 'events')
        return fc.uniqueArray(fc.constantFrom(...SUBSCRIBABLE), { maxLength: 4 }).map((e) => JSON.stringify(e));
      const item = schema.items as Schema;
      if (key === 'members') {
        return fc
          .uniqueArray(fc.constantFrom(...USERNAMES), { maxLength: 4 })
          .chain((names) =>
            fc.tuple(
              ...names.map((username) =>
                fc.constantFrom('lead', 'engineer', 'designer').map((role) => ({ username, role })),
              ),
            ),
          )
          .map((members) => JSON.stringify(members));
      }
      return fc
        .array(validValue(key, item), { maxLength: 3 })
        .map((items) => `[${items.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(',')}]`);
    }
    case 'object':
      if (key === 'metadata' || !schema.properties) {
        // Free-form: any JSON object is valid, including deeply nested ones and prototype-looking keys.
        return fc.oneof(
          {
            weight: 8,
            arbitrary: fc
              .dictionary(fc.string({ maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), { maxKeys: 4 })
              .map((o) => JSON.stringify(o)),
          },
          {
            weight: 2,
            arbitrary: fc
              .noBias(fc.constantFrom(62, 63, 64, 20_000, 100_000))
              .chain((d) => fc.constantFrom(`{"deep":${nest(d, 'object')}}`, `{"deep":${nest(d, 'array')}}`)),
          },
          { weight: 1, arbitrary: fc.constantFrom(...PROTO_VALUES.filter((v) => v.startsWith('{'))) },
        );
      }
      return fc.constant('{}');
    default:
      return fc.jsonValue({ maxDepth: 2 }).map((v) => JSON.stringify(v));
  }
}

type Entries = [string, RawValue][];

/** A body the schema accepts: every required field, some of the optional ones. */
function validEntries(schema: TObject): fc.Arbitrary<Entries> {
  const required = new Set((schema as unknown as { required?: string[] }).required ?? []);
  const fields = Object.entries(schema.properties as Record<string, Schema>).map(([key, prop]) => {
    const value = validValue(key, prop).map((v): [string, RawValue] => [key, v]);
    return required.has(key)
      ? value.map((e) => [e])
      : fc.option(value, { freq: 2, nil: undefined }).map((e) => (e ? [e] : []));
  });
  return fc.tuple(...fields).map((parts) => parts.flat() as Entries);
}

type Mutation =
  | { op: 'drop'; at: number }
  | { op: 'set'; at: number; value: string }
  | { op: 'add'; key: string; value: string }
  | { op: 'dup'; at: number; value: string };

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ op: fc.constant('drop' as const), at: fc.nat() }),
  { weight: 3, arbitrary: fc.record({ op: fc.constant('set' as const), at: fc.nat(), value: hostileValue }) },
  {
    weight: 2,
    arbitrary: fc.record({
      op: fc.constant('add' as const),
      key: hostileKey,
      value: fc.oneof(hostileValue, fc.constant('"x"')),
    }),
  },
  fc.record({ op: fc.constant('dup' as const), at: fc.nat(), value: hostileValue }),
);

function mutate(entries: Entries, mutations: Mutation[]): Entries {
  const out = [...entries];
  for (const m of mutations) {
    if (m.op === 'add') {
      out.push([m.key, m.value]);
      continue;
    }
    if (out.length === 0) continue;
    const i = m.at % out.length;
    if (m.op === 'drop') out.splice(i, 1);
    else if (m.op === 'set') out[i] = [out[i]![0], m.value];
    else out.push([out[i]![0], m.value]);
  }
  return out;
}

/** A body for a schema: valid (a quarter of the time), mutated, or not an object at all. */
export function bodyFor(schema: TObject): fc.Arbitrary<BodySpec> {
  return fc.oneof(
    { weight: 2, arbitrary: validEntries(schema).map((entries): BodySpec => ({ kind: 'entries', entries })) },
    {
      weight: 6,
      arbitrary: fc
        .tuple(validEntries(schema), fc.array(mutation, { minLength: 1, maxLength: 3 }))
        .map(([entries, ms]): BodySpec => ({ kind: 'entries', entries: mutate(entries, ms) })),
    },
    { weight: 2, arbitrary: hostileBody },
  );
}

// ------------------------------------------------------------------------------------------------ paths

/** Path segments (as sent: raw ASCII) that are not ids, or are ids in disguise. */
export const hostileSegment: fc.Arbitrary<string> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      '.',
      '..',
      '%2e%2e',
      '%2F',
      '..%2f..%2fetc%2fpasswd',
      '%00',
      '%',
      '%zz',
      '%E0%A4%A',
      '%C0%AF',
      '%FF',
      '%ED%A0%80',
      '%F0%9F%98%80',
      '%25',
      '%2525',
      '*',
      '~',
      ';',
      'a;b=c',
      '%3B',
      '%3F',
      '%23',
      '%20',
      '+',
      'proj_001%20',
      'PROJ_001',
      'task_001%00',
      'null',
      'undefined',
      '__proto__',
      'constructor',
      'prototype',
      'hasOwnProperty',
      '0',
      '-1',
      '1e309',
      'NaN',
      'read-all',
      'read',
      'deliveries',
      '%u0041',
      '%%',
      '%-1',
      '\\',
      '"',
      "'",
      '<x>',
      '{}',
      '|',
      '^',
      '`',
      'x'.repeat(999),
      'x'.repeat(1000),
      'x'.repeat(1001),
      'x'.repeat(5000),
      '%41'.repeat(400),
    ),
  },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 30 }).map((s) => encodeURIComponent(wellFormed(s))) },
  { weight: 1, arbitrary: fc.stringMatching(/^[\x21-\x7e]{0,20}$/).map((s) => s.replace(/[?#/]/g, '')) },
);

/** Whether a pattern's segment names a record (`:task`), not any text (`:raw`, `:name`) or itself. */
const isRef = (part: string) => part.startsWith(':') && part !== ':raw' && part !== ':name';

const segment = (part: string): fc.Arbitrary<string | Ref> => {
  if (!part.startsWith(':')) return fc.constant(part);
  if (!isRef(part)) return hostileSegment;
  return fc.oneof({ weight: 3, arbitrary: ref(part.slice(1) as RefKind) }, { weight: 2, arbitrary: hostileSegment });
};

/** The route's path, its id segments either existing records or hostile text; sometimes bent out of shape. */
export function pathFor(route: RouteDef, hostile = true): fc.Arbitrary<(string | Ref)[]> {
  const parts = route.pattern.split('/').slice(1);
  const base = fc.tuple(
    ...parts.map((p) => (hostile ? segment(p) : isRef(p) ? ref(p.slice(1) as RefKind) : fc.constant(p))),
  );
  if (!hostile) return base;
  return fc
    .tuple(base, fc.constantFrom('none', 'none', 'none', 'trailing', 'double', 'extra', 'upper', 'drop', 'empty-inner'))
    .map(([segs, bend]) => {
      const s = [...segs];
      if (bend === 'trailing') s.push('');
      if (bend === 'double') s.splice(1, 0, '');
      if (bend === 'extra') s.push('extra');
      if (bend === 'upper' && typeof s[1] === 'string') s[1] = s[1].toUpperCase();
      if (bend === 'drop' && s.length > 1) s.pop();
      if (bend === 'empty-inner') s.splice(s.length - 1, 0, '');
      return s;
    });
}

// ------------------------------------------------------------------------------------------------ query strings

/** Query text that is broken as percent-encoding, or a value no parameter takes. Already URL text. */
const RAW_QUERY_VALUES = [
  '',
  '%',
  '%zz',
  '%E0%A4%A',
  '%C0%AF',
  '%FF',
  '%00',
  '%ED%A0%80',
  '%F0%9F%98%80',
  '%2B',
  '+',
  '++',
  '%20',
  '1e309',
  '-0',
  'NaN',
  'Infinity',
  '-1',
  '1.5',
  '99999999999999999999999',
  '0x10',
  'TRUE',
  'True',
  '1',
  '0',
  'yes',
  'null',
  'undefined',
  '[]',
  '{}',
  'true%00',
  'false%20',
  '2026-02-30',
  '2026-09-30',
  '2026-09-30T25:00',
  '2026-09-30T10:00:00%2B02:00',
  '2026-09-30T10:00:00Z',
  '%3Cscript%3E',
  'a=b',
  '%26',
  '%3D',
  `${'x'.repeat(5000)}`,
  '%41'.repeat(300),
];

const HOSTILE_PARAM_NAMES = [
  '__proto__',
  'constructor',
  'prototype',
  '__proto__[polluted]',
  'constructor[prototype][polluted]',
  '__proto__.polluted',
  'a[b]',
  'a[]',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '',
  '%',
  '%zz',
  '%5F_proto__',
  'x'.repeat(2000),
];

const queryToken = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...RAW_QUERY_VALUES) },
  { weight: 2, arbitrary: fc.constantFrom(...NASTY_STRINGS).map((s) => encodeURIComponent(wellFormed(s))) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }).map((s) => encodeURIComponent(wellFormed(s))) },
);

function paramValue(name: string, schema: TObject | undefined): fc.Arbitrary<string> {
  const prop = (schema?.properties as Record<string, Schema> | undefined)?.[name];
  if (!prop) return queryToken;
  const valid = validValue(name, prop).map((v) => {
    const text = typeof v === 'string' ? v : `${v.ref}_001`;
    let value: unknown = text;
    try {
      value = JSON.parse(text);
    } catch {
      /* a raw id */
    }
    return encodeURIComponent(wellFormed(String(value)));
  });
  return fc.oneof({ weight: 2, arbitrary: valid }, { weight: 2, arbitrary: queryToken });
}

/** A query string for a route: its own parameters (valid or not), hostile names, duplicates, odd separators. */
export function queryFor(route: RouteDef): fc.Arbitrary<string> {
  const names = Object.keys((route.query?.properties ?? {}) as object);
  const name =
    names.length > 0
      ? fc.oneof(
          { weight: 4, arbitrary: fc.constantFrom(...names) },
          { weight: 1, arbitrary: fc.constantFrom(...HOSTILE_PARAM_NAMES) },
        )
      : fc.constantFrom(...HOSTILE_PARAM_NAMES, 'limit', 'status', 'since');
  const pair = name.chain((n) =>
    fc.tuple(
      fc.constant(n),
      paramValue(n, route.query),
      fc.constantFrom('kv', 'kv', 'kv', 'kv', 'bare', 'empty', 'novalue-key'),
    ),
  );
  return fc
    .tuple(fc.array(pair, { maxLength: 5 }), fc.boolean(), fc.constantFrom('&', '&', '&', ';', '&&'))
    .map(([pairs, duplicate, sep]) => {
      const all = duplicate && pairs.length > 0 ? [...pairs, pairs[0]!] : pairs;
      return all
        .map(([n, v, form]) => {
          const key = /^[\w.[\]%-]*$/.test(n) ? n : encodeURIComponent(wellFormed(n));
          if (form === 'bare') return key;
          if (form === 'empty') return `${key}=`;
          if (form === 'novalue-key') return `=${v}`;
          return `${key}=${v}`;
        })
        .join(sep);
    });
}

// ------------------------------------------------------------------------------------------------ headers

const CONTENT_TYPES = [
  'application/json',
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;charset=UTF-8',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json ; foo=bar',
  'application/jsonx',
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/vnd.api+json',
  'text/json',
  'text/plain',
  'text/html',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=----x',
  'application/octet-stream',
  '*/*',
  'application/*',
  '',
  ';',
  'json',
  'application/json; charset="utf-8"',
  'application/json; boundary=',
  ' application/json',
  'application/json, text/plain',
  'application/xml',
  'application/json; charset=\u00ff',
];

/** A header value Node would let through: tab, visible ASCII, space and Latin-1 (obs-text). */
const headerText = fc.string({
  unit: fc.constantFrom('\t', ' ', 'a', 'Z', '0', ',', ';', '"', '*', '/', '=', '\u00e9', '\u00ff', '\\', 'W'),
  maxLength: 40,
});

const ETAG_VALUES: fc.Arbitrary<HeaderValue> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.constantFrom<HeaderValue>({ etag: 'current' }, { etag: 'stale' }, { etag: 'weak-current' }),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '*',
      'W/*',
      '"x"',
      '"x", *',
      '',
      ' ',
      ',',
      ',,,',
      'W/',
      '"',
      '"0"',
      'W/"0"',
      'a'.repeat(8000),
      '*, "x"',
    ),
  },
  { weight: 1, arbitrary: headerText },
);

/** Headers beyond `Content-Type`: conditional requests, the actor, the request id and some that mean nothing here. */
export const extraHeaders: fc.Arbitrary<Record<string, HeaderValue>> = fc.record(
  {
    'if-match': ETAG_VALUES,
    'if-none-match': ETAG_VALUES,
    'x-actor': fc.oneof(
      fc.constantFrom('', ' ', 'alice', 'a'.repeat(100), 'a'.repeat(101), '\u00e5lice', '\t', 'a, b', 'system'),
      headerText,
    ),
    'x-request-id': fc.oneof(
      fc.constantFrom('', 'a'.repeat(128), 'a'.repeat(129), '<script>', 'ok-123', '../..', '\u00ff', 'a b'),
      headerText,
    ),
    accept: fc.constantFrom('text/html', 'application/xml', '*/*', '', 'application/json;q=0'),
    origin: fc.constantFrom('https://evil.example', 'null', ''),
    'access-control-request-method': fc.constantFrom('DELETE', 'PUT', 'BOGUS'),
    'x-http-method-override': fc.constantFrom('DELETE', 'PUT'),
    'content-encoding': fc.constantFrom('gzip', 'br', 'identity', 'bogus'),
    'accept-encoding': fc.constantFrom('gzip', 'br', '*', 'identity;q=0'),
    'x-forwarded-for': headerText,
  },
  { requiredKeys: [] },
);

export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  { weight: 3, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

// ------------------------------------------------------------------------------------------------ requests

const withContentType = (headers: Record<string, HeaderValue>, type: string | undefined, body: BodySpec | undefined) =>
  body !== undefined && type !== undefined ? { ...headers, 'content-type': type } : headers;

/** Requests that carry bodies to every route that takes one, and to the body-less writes. */
const mostlyJson: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 17, arbitrary: fc.constant('application/json') },
  { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
  { weight: 1, arbitrary: fc.constant(undefined) },
);

export const bodyRequest: fc.Arbitrary<RequestSpec> = fc
  .oneof(
    { weight: 9, arbitrary: fc.constantFrom(...BODY_ROUTES) },
    { weight: 1, arbitrary: fc.constantFrom(...API_ROUTES.filter((r) => !r.body && r.method !== 'GET')) },
  )
  .chain((route) =>
    fc.record({
      method: fc.constant(route.method),
      path: pathFor(route, false),
      query: fc.constant(''),
      body: route.body ? bodyFor(route.body) : hostileBody,
      type: mostlyJson,
      actor: fc.option(fc.constantFrom('alice', 'fuzzer', '', 'a'.repeat(101)), { freq: 4, nil: undefined }),
    }),
  )
  .map(({ type, actor, ...spec }) => ({
    ...spec,
    headers: withContentType(actor === undefined ? {} : { 'x-actor': actor }, type, spec.body),
  }));

/** Query strings on every route (mostly the ones that read them). */
export const queryRequest: fc.Arbitrary<RequestSpec> = fc
  .oneof(
    { weight: 8, arbitrary: fc.constantFrom(...QUERY_ROUTES) },
    { weight: 2, arbitrary: fc.constantFrom(...API_ROUTES) },
  )
  .chain((route) =>
    fc.record({
      method: fc.constantFrom(route.method, route.method, route.method, 'HEAD'),
      path: pathFor(route, false),
      query: queryFor(route),
      headers: fc.constant({}),
      body: route.body ? bodyFor(route.body).map((b) => b as BodySpec | undefined) : fc.constant(undefined),
    }),
  )
  .map((spec) => ({
    ...spec,
    method: spec.method === 'HEAD' && spec.body ? 'GET' : spec.method,
    headers: (spec.body ? { 'content-type': 'application/json' } : {}) as Record<string, HeaderValue>,
  }));

/** Hostile ids and paths under every route, with any method. */
export const pathRequest: fc.Arbitrary<RequestSpec> = fc.constantFrom(...ROUTES).chain((route) =>
  fc
    .record({
      method: fc.oneof(
        { weight: 4, arbitrary: fc.constant(route.method) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      path: pathFor(route, true),
      query: fc.oneof({ weight: 4, arbitrary: fc.constant('') }, { weight: 1, arbitrary: queryFor(route) }),
      body: route.body
        ? fc.option(bodyFor(route.body), { freq: 5, nil: undefined })
        : fc.option(hostileBody, { freq: 1, nil: undefined }),
    })
    .map((spec) => ({
      ...spec,
      headers: (spec.body ? { 'content-type': 'application/json' } : {}) as Record<string, HeaderValue>,
    })),
);

/** Every route with hostile headers: content types, conditional requests, actors, request ids, raw bytes. */
export const headerRequest: fc.Arbitrary<RequestSpec> = fc.constantFrom(...API_ROUTES).chain((route) =>
  fc
    .record({
      method: fc.oneof(
        { weight: 5, arbitrary: fc.constant(route.method) },
        { weight: 1, arbitrary: fc.constant('OPTIONS') },
      ),
      path: pathFor(route, false),
      query: fc.constant(''),
      headers: extraHeaders,
      type: contentType,
      body: route.body
        ? fc.oneof({ weight: 3, arbitrary: bodyFor(route.body) }, { weight: 1, arbitrary: hostileBody })
        : fc.option(hostileBody, { freq: 2, nil: undefined }),
    })
    .map(({ type, ...spec }) => ({ ...spec, headers: withContentType(spec.headers, type, spec.body) })),
);
