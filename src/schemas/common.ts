import { Type, type Static, type TSchema, type TProperties, type TObject, type TObjectOptions } from 'typebox';
import { ErrorResponse, type ErrorCode } from '../errors.ts';
import { DateOnly, Id, Nullable, StringEnum, Timestamp } from '../model/schema.ts';

export { DateOnly, Id, Nullable, StringEnum, Timestamp };

/** Length limits shared by every resource. */
export const LIMITS = {
  name: 200,
  text: 10_000,
  username: 100,
  url: 2_048,
} as const;

/** A non-blank string: at least one character that is not white space. */
const NOT_BLANK = '\\S';
export const NOT_BLANK_PATTERN = NOT_BLANK;

/** A required, non-blank string of at most `max` characters (the pattern also rules out the empty string). */
export const RequiredText = (max: number, extra: object = {}) =>
  Type.String({ maxLength: max, pattern: NOT_BLANK, ...extra });
/** Free text that may be empty. */
export const Text = (max: number, extra: object = {}) => Type.String({ maxLength: max, ...extra });

export const Name = RequiredText(LIMITS.name);
export const Username = RequiredText(LIMITS.username, { examples: ['alice'] });
export const Description = Text(LIMITS.text);

/** The annotation of a `CheckedEnum`: its values and the code a value outside them is refused with. */
export const CHECKED_ENUM = 'x-checked-enum';

/**
 * A string from a closed list that the service checks itself, to refuse a value outside it with its own error
 * `code` (`INVALID_EVENTS` rather than `VALIDATION_ERROR`). The validator takes any string; the published
 * document shows the list as the field's `enum` and the code among the route's 400 answers.
 */
export const CheckedEnum = (values: readonly string[], code: ErrorCode, extra: object = {}) =>
  Type.String({ ...extra, [CHECKED_ENUM]: { values, code } });

/**
 * A request body. Properties it does not declare are allowed and ignored: the body validator drops them
 * (src/http/validation.ts), from nested objects too, so they are never stored or echoed. The schema says nothing
 * of them (no `additionalProperties: false`), so a gateway built from the published document accepts what the
 * service accepts.
 */
export const Body = <P extends TProperties>(properties: P, options: TObjectOptions = {}) =>
  Type.Object(properties, options);

/** A query string: unknown parameters are ignored. */
export const Query = <P extends TProperties>(properties: P) => Type.Object(properties, { additionalProperties: false });

export const IdParams = Type.Object({ id: Type.String({ minLength: 1 }) });
export type IdParams = Static<typeof IdParams>;

/** Optimistic concurrency: a write with `If-Match` happens only on the version it names (else 412). */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(
    Type.String({
      description:
        'ETag of the version this change is based on; `412 PRECONDITION_FAILED` if the record has changed since',
    }),
  ),
});
/** Conditional read: `If-None-Match` with the current ETag gives `304 Not Modified`. */
export const IfNoneMatchHeaders = Type.Object({
  'if-none-match': Type.Optional(
    Type.String({ description: 'ETag(s) you hold; `304` with no body if the record is unchanged' }),
  ),
});
export const NotModified = Type.Null({ description: 'Not modified: the ETag you hold is current' });

export const One = <T extends TSchema>(record: T) => Type.Object({ data: record });
export const Many = <T extends TSchema>(record: T) =>
  Type.Object({
    data: Type.Array(record),
    count: Type.Integer({ minimum: 0, description: 'Number of items in `data`' }),
  });
export const Deleted = Type.Object({
  data: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }),
});

/** Error answers every route can give, with the one error shape. */
export const errorResponses = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, ErrorResponse])) as Record<number, typeof ErrorResponse>;

export type { TObject };

/** The `default` of each property of an object schema, so services fill the same defaults the validator does. */
export function defaultsOf(schema: TObject): Readonly<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, prop] of Object.entries(schema.properties)) {
    if ('default' in (prop as object)) out[key] = (prop as { default: unknown }).default;
  }
  return Object.freeze(out);
}

/**
 * Fresh copies of the defaults (arrays and objects are never shared between records). Only the defaults the
 * input does not override are copied: `structuredClone` of an unused default was most of this function's time.
 */
export function withDefaults<T extends object>(defaults: Readonly<Record<string, unknown>>, input: T): T {
  const out: Record<string, unknown> = {};
  for (const key in defaults) {
    const value = defaults[key];
    const given = (input as Record<string, unknown>)[key];
    out[key] =
      given !== undefined ? given : value !== null && typeof value === 'object' ? structuredClone(value) : value;
  }
  for (const [key, value] of Object.entries(input)) if (value !== undefined) out[key] = value;
  return out as T;
}

/** The update body of a create body: every property optional, no defaults (an update changes only what is sent). */
export function patchOf<P extends TProperties>(schema: TObject<P>, omit: readonly (keyof P)[] = []) {
  const properties: Record<string, TSchema> = {};
  for (const [key, prop] of Object.entries(schema.properties)) {
    if (omit.includes(key as keyof P)) continue;
    const { default: _default, ...rest } = prop as TSchema & { default?: unknown };
    properties[key] = Type.Optional(rest as TSchema);
  }
  return Type.Object(properties) as TObject<{
    [K in keyof P]: ReturnType<typeof Type.Optional<P[K]>>;
  }>;
}
