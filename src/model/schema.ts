import { Type, type Static, type TSchema } from 'typebox';

/** The field schemas every record is made of; request bodies compose them too (src/schemas/common.ts). */

export const Id = (prefix: string) =>
  Type.String({
    minLength: 1,
    maxLength: 100,
    description: `Identifier, \`${prefix}_…\``,
    examples: [`${prefix}_001`],
  });

export const Timestamp = Type.String({
  format: 'date-time',
  description: 'ISO 8601, UTC',
  examples: ['2026-11-22T10:00:00.000Z'],
});
export const DateOnly = Type.String({
  format: 'date',
  description: 'Calendar date, `YYYY-MM-DD` (years 0001 to 9999)',
  examples: ['2026-11-22'],
});

/** A string restricted to a closed list: one `enum`, clearer in errors and OpenAPI than a union of literals. */
export const StringEnum = <const T extends readonly string[]>(values: T, extra: object = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...extra });

/** `T` or `null`, as a JSON Schema type list (OpenAPI 3.1 style) rather than an `anyOf`; an `enum` admits null too. */
export const Nullable = <T extends TSchema>(schema: T) => {
  const { type, enum: values, ...rest } = schema as TSchema & { type?: string; enum?: unknown[] };
  return Type.Unsafe<Static<T> | null>({
    ...rest,
    type: [type, 'null'],
    ...(values ? { enum: [...values, null] } : {}),
  });
};
