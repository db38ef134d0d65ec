import { Ajv, type ErrorObject, type Options } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifySchemaCompiler } from 'fastify';
import { NOT_BLANK_PATTERN } from '../schemas/common.ts';
import type { ErrorDetail } from '../errors.ts';
import { isCalendarDate, isStorableInstant, parseInstant } from '../model/time.ts';

// ajv-formats is CommonJS; its default export arrives wrapped under ESM.
type AddFormats = (ajv: Ajv, formats: string[]) => Ajv;
const addFormats = ((addFormatsModule as { default?: AddFormats }).default ?? addFormatsModule) as AddFormats;

const base: Options = {
  allErrors: true, // report every bad field at once
  useDefaults: true,
  removeAdditional: true, // drop query parameters a query schema does not declare (additionalProperties: false)
  strict: false, // schemas carry OpenAPI annotations (examples, description) ajv does not know
  messages: true,
};

function makeAjv(options: Options): Ajv {
  const ajv = new Ajv({ ...base, ...options });
  addFormats(ajv, ['date-time', 'uri', 'email']);
  // An RFC 3339 date-time that is also an instant every store keeps: not a leap second (`23:59:60`, which RFC 3339
  // allows and JavaScript cannot read), not outside the years 0001 to 9999.
  const rfc3339 = ajv.formats['date-time'] as { validate: (s: string) => boolean };
  ajv.addFormat('date-time', {
    type: 'string',
    validate: (s: string) => rfc3339.validate(s) && isStorableInstant(Date.parse(s)),
  });
  // A calendar date every store keeps: years 0001 to 9999 (PostgreSQL has no year 0000, which RFC 3339 allows).
  ajv.addFormat('date', { type: 'string', validate: isCalendarDate });
  // ISO 8601 instant: a calendar date alone, or a date-time with optional seconds and zone (UTC when absent).
  ajv.addFormat('iso-instant', { type: 'string', validate: (s: string) => !Number.isNaN(parseInstant(s)) });
  return ajv;
}

// Bodies are JSON: their types are taken as sent, never coerced ("42" is not a number). Properties an object
// schema does not declare are dropped, at any depth, whatever its `additionalProperties` says (bodies declare
// none: unknown and read-only fields are ignored); free-form objects (a `metadata` record) declare no properties,
// so they keep all of theirs.
const bodyAjv = makeAjv({ coerceTypes: false, removeAdditional: 'all' });
// Query strings and path parameters are text: their schema says how to read them (`limit=5` is 5).
// Not 'array' coercion: a parameter given twice is an error, not silently the first value.
const textAjv = makeAjv({ coerceTypes: true });

// A stored record as a whole (a data file's): taken exactly as written, nothing coerced, defaulted or dropped; a field
// the schema does not declare is an error when the schema closes the object.
const recordAjv = makeAjv({ coerceTypes: false, useDefaults: false, removeAdditional: false });

/**
 * A check of whole records against `schema`, with the same formats and the same refusal of what no store keeps as a
 * request body: each problem as a `{ field, message }` (`field` relative to the record, `record` for itself).
 */
export function recordValidator(schema: object): (record: unknown) => ErrorDetail[] {
  const validate = checkedFirst(recordAjv.compile(schema) as Validate, [unstorable]);
  return (record) => (validate(record) ? [] : toDetails(validate.errors ?? [], 'record'));
}

export const validatorCompiler: FastifySchemaCompiler<unknown> = ({ schema, httpPart }) => {
  const text = httpPart !== 'body';
  const validate = (text ? textAjv : bodyAjv).compile(schema as object) as Validate;
  const checks: Check[] = [unstorable];
  if (httpPart === 'querystring') checks.push(undeclaredOperators(schema as Schema));
  const numbers = text ? numbersAsWritten(schema as Schema) : undefined;
  if (numbers) checks.push(numbers);
  return checkedFirst(validate, checks) as ReturnType<FastifySchemaCompiler<unknown>>;
};

/** A check of a request part as it came, before ajv reads (and coerces) it: its problems added to `found`. */
type Check = (data: unknown, found: ErrorObject[]) => void;

/** `validate` with the problems of `checks` first, in their order, then ajv's; valid only with none. */
function checkedFirst(validate: Validate, checks: readonly Check[]): Validate {
  const check: Validate = (data) => {
    const found: ErrorObject[] = [];
    for (const c of checks) c(data, found);
    const valid = validate(data);
    check.errors = found.length > 0 ? [...found, ...(validate.errors ?? [])] : (validate.errors ?? null);
    return valid && found.length === 0;
  };
  return check;
}

/**
 * A bracketed query parameter the route does not declare (`priority[in]` where `priority` has no filter,
 * `createdAt[foo]`, `username[]` where `username` takes one value) is refused, naming it, rather than dropped as
 * other unknown parameters are: it says the client meant a condition the route does not have, and dropping it would
 * widen what the request reads or changes (`PATCH /api/notifications/read-all?username[]=bob` marking everyone's).
 */
function undeclaredOperators(schema: Schema): Check {
  const declared = new Set(Object.keys(schema.properties ?? {}));
  return (data, found) => {
    if (data === null || typeof data !== 'object') return;
    for (const key of Object.keys(data)) {
      if (!key.includes('[') || declared.has(key)) continue;
      const name = key.slice(0, key.indexOf('['));
      const offered = [...declared].filter((k) => k.startsWith(`${name}[`));
      const message =
        offered.length > 0
          ? `is not an operator of \`${name}\`: use ${offered.join(', ')}`
          : declared.has(name)
            ? `\`${name}\` takes one value here, as \`${name}=\``
            : `\`${name}\` has no operators here`;
      found.push({ keyword: 'operator', instancePath: `/${key}`, schemaPath: '#', params: {}, message });
    }
  };
}

type Schema = { type?: unknown; properties?: Record<string, Schema> };
type Validate = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null };

/**
 * How a number is written in a query string or path: digits, and for a `number` a fraction (`hours[gte]=1.5`), never
 * an exponent (`1e3`), as docs/api.md promises for every number of a query.
 */
const WRITTEN: Record<string, RegExp> = { integer: /^-?\d+$/, number: /^-?\d+(\.\d+)?$/ };

/**
 * ajv reads a text parameter as a number whenever JavaScript would (`Number("0x10")` is 16; `" 1"`, `"1.0"` and
 * `"1e3"` are numbers too), so `limit=0x10` would pass as 16. The numeric parameters of a text part are checked
 * as written first: a value that is not plain digits (with a fraction, for a `number`) is refused as not of its
 * type, and one too large for JavaScript (400 digits, which would be Infinity) as out of range, with ajv's other
 * errors after them. Parts with no numeric parameter have no such check.
 */
function numbersAsWritten(schema: Schema): Check | undefined {
  const numeric = Object.entries(schema.properties ?? {}).flatMap(([key, prop]) => {
    const type = String(prop.type);
    return WRITTEN[type] ? [{ key, type, pattern: WRITTEN[type]! }] : [];
  });
  if (numeric.length === 0) return undefined;
  return (data, found) => {
    if (data === null || typeof data !== 'object') return;
    for (const { key, type, pattern } of numeric) {
      const value = (data as Record<string, unknown>)[key];
      if (typeof value !== 'string') continue;
      if (!pattern.test(value)) {
        found.push({
          keyword: 'type',
          instancePath: `/${key}`,
          schemaPath: `#/properties/${key}/type`,
          params: { type },
          message: `must be ${type}`,
        });
      } else if (!Number.isFinite(Number(value))) {
        found.push(unstorableError(`/${key}`, OUT_OF_RANGE));
      }
    }
  };
}

/**
 * Refuses what no durable store keeps, in any string or number of a request part (a property name included): the
 * NUL character (U+0000), which PostgreSQL stores in neither text nor jsonb; an unpaired UTF-16 surrogate
 * (`"\\ud800"`), which is not Unicode text and would come back as U+FFFD; and a number JSON wrote but JavaScript
 * cannot hold (`1e400`, read as Infinity, which would come back as null). Every store answers the same
 * VALIDATION_ERROR rather than one of them failing or changing the value. Checked before the schema, its errors
 * first.
 */
const unstorable: Check = (data, found) => findUnstorable(data, '', found);

const OUT_OF_RANGE = 'must be a finite number: this one is out of range';

/** Why a string cannot be stored, or undefined when it can. */
function textProblem(text: string): string | undefined {
  if (text.includes('\0')) return 'must not contain the NUL character (\\u0000)';
  if (!(text as string & { isWellFormed(): boolean }).isWellFormed())
    return 'must be Unicode text: it contains an unpaired surrogate (such as \\ud800)';
  return undefined;
}

function findUnstorable(value: unknown, path: string, found: ErrorObject[]): void {
  const problem = leafProblem(value);
  if (problem) found.push(unstorableError(path, problem));
  else if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) findInside(value[i], path, String(i), found);
  } else if (value !== null && typeof value === 'object') {
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const keyProblem = textProblem(key);
      if (keyProblem) found.push(unstorableError(pointerTo(path, key), keyProblem));
      else findInside((value as Record<string, unknown>)[key], path, key, found);
    }
  }
}

/**
 * The item `key` of the array or object at `path`. Its path is written only when it has a problem or items of its
 * own: most items of a request are strings that can be stored, and need none.
 */
function findInside(item: unknown, path: string, key: string, found: ErrorObject[]): void {
  if (item !== null && typeof item === 'object') return findUnstorable(item, pointerTo(path, key), found);
  const problem = leafProblem(item);
  if (problem) found.push(unstorableError(pointerTo(path, key), problem));
}

/** Why a string or a number cannot be stored, or undefined when it can (and for anything else). */
function leafProblem(value: unknown): string | undefined {
  if (typeof value === 'string') return textProblem(value);
  if (typeof value === 'number' && !Number.isFinite(value)) return OUT_OF_RANGE;
  return undefined;
}

/** The JSON Pointer of `key` under `path` (`~` and `/` escaped). */
function pointerTo(path: string, key: string): string {
  return `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
}

function unstorableError(instancePath: string, message: string): ErrorObject {
  return { keyword: 'storable', instancePath, schemaPath: '#', params: {}, message };
}

/** Turns ajv's errors into one `{ field, message }` per bad field (its first problem), in words a caller can act on. */
export function toDetails(errors: readonly ErrorObject[], part: string | undefined): ErrorDetail[] {
  const byField = new Map<string, ErrorDetail>();
  for (const e of errors) {
    const field = fieldOf(e, part);
    if (!byField.has(field)) byField.set(field, { field, message: messageOf(e) });
  }
  return [...byField.values()];
}

function fieldOf(e: ErrorObject, part: string | undefined): string {
  const segments = e.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  if (e.keyword === 'required') segments.push(String((e.params as { missingProperty: string }).missingProperty));
  if (e.keyword === 'additionalProperties')
    segments.push(String((e.params as { additionalProperty: string }).additionalProperty));
  let field = '';
  for (const s of segments) field += /^\d+$/.test(s) ? `[${s}]` : field ? `.${s}` : s;
  return field || (part === 'body' ? 'body' : (part ?? 'request'));
}

function messageOf(e: ErrorObject): string {
  const p = e.params as Record<string, unknown>;
  switch (e.keyword) {
    case 'required':
      return 'is required';
    case 'type': {
      const t = Array.isArray(p.type) ? p.type.join(' or ') : String(p.type);
      return e.instancePath === '' && t === 'object' ? 'must be a JSON object' : `must be ${article(t)}`;
    }
    case 'enum':
      return `must be one of: ${(p.allowedValues as unknown[]).map((v) => (v === null ? 'null' : String(v))).join(', ')}`;
    case 'pattern':
      return p.pattern === NOT_BLANK_PATTERN ? 'must not be blank' : `must match the pattern ${String(p.pattern)}`;
    case 'minLength':
      return p.limit === 1 ? 'must not be empty' : `must be at least ${String(p.limit)} characters`;
    case 'maxLength':
      return `must be at most ${String(p.limit)} characters`;
    case 'format':
      return formatMessage(String(p.format));
    case 'additionalProperties':
      return 'is not a field of this record';
    case 'const':
      return `must be ${JSON.stringify(p.allowedValue)}`;
    default:
      return e.message ?? 'is invalid';
  }
}

function article(type: string): string {
  if (type === 'null') return 'null';
  if (type.includes(' or ')) return type;
  return /^[aeiou]/.test(type) ? `an ${type}` : `a ${type}`;
}

function formatMessage(format: string): string {
  switch (format) {
    case 'date':
      return 'must be a calendar date (YYYY-MM-DD)';
    case 'date-time':
    case 'iso-instant':
      return 'must be an ISO 8601 date-time, e.g. 2026-11-22T10:00:00Z';
    case 'uri':
      return 'must be an absolute URL';
    default:
      return `must be a valid ${format}`;
  }
}
