import type { TObject, TSchema } from 'typebox';
import { ErrorResponse } from '../errors.ts';

/** A record schema the OpenAPI document names (`#/components/schemas/<name>`), with sample records in its shape. */
export interface Component {
  readonly name: string;
  readonly schema: TSchema;
  readonly samples: readonly object[];
}

/** What the document shows of one resource: its tag, its collection's samples, the record schemas it names. */
export interface ResourceDocs {
  /** The OpenAPI tag of its operations, with the description the docs page shows. */
  readonly tag: { readonly name: string; readonly description: string };
  /**
   * Its collection for the document's examples: the path (`/api/tasks`), the name a record has in messages,
   * and sample records as the collection lists them (ids for paths, fields for request bodies).
   */
  readonly collection?: { readonly path: string; readonly label: string; readonly samples: readonly { id: string }[] };
  /** The record schemas it names in the document. */
  readonly components?: readonly Component[];
  /** Answer shapes its routes share with others or name on their own (`MarkedRead`), by component name. */
  readonly shapes?: Readonly<Record<string, TSchema>>;
}

/** A reference to a shared schema, which @fastify/swagger turns into `#/components/schemas/<name>`. */
export const ref = (name: string) => ({ $ref: `${name}#` });

/** The tags, components and examples of the document, from the resources it describes (in tag order). */
export type ApiDocs = ReturnType<typeof apiDocs>;

export function apiDocs(resources: readonly ResourceDocs[]) {
  const collections = new Map(resources.flatMap((r) => (r.collection ? [[r.collection.path, r.collection]] : [])));
  /**
   * The records the responses carry, as named components (`#/components/schemas/Task`), so that a client
   * generated from the document gets one type per record. Each with its sample records, in its shape.
   */
  const records = resources.flatMap((r) => r.components ?? []);
  const bySchema = new Map(records.map((r) => [r.schema, r]));

  return {
    /** The answer shapes the resources name, by component name. */
    shapes: Object.assign({}, ...resources.map((r) => r.shapes ?? {})) as Record<string, TSchema>,

    /** The document's tags, in the order the docs page lists them. */
    tags: resources.map((r) => r.tag),

    /** The shared schemas the document names: the error body and the records. */
    components: (): TSchema[] => [
      { ...ErrorResponse, $id: 'ErrorResponse' },
      ...records.map((r) => ({ ...r.schema, $id: r.name })),
    ],

    /**
     * The samples of the collection a path belongs to (`/api/tasks/:id` → the seeded tasks): an id for the path
     * parameter and delete answers, the 404 message for an unknown id, and a request body made of a sample
     * record's fields (at most `max` of them: a PATCH example shows a partial change).
     */
    sampleFor(url: string) {
      const collection = collections.get(url.split('/').slice(0, 3).join('/'));
      const first = collection?.samples[0] as Record<string, unknown> | undefined;
      if (!collection || !first) return undefined;
      const id = first.id as string;
      return {
        id,
        record: first,
        notFound: `${collection.label} '${id.replace(/_.*/, '_999')}' was not found`,
        body(schema: TSchema, max: number): object | undefined {
          const keys = Object.keys((schema as TObject).properties ?? {}).filter((k) => k in first);
          if (keys.length === 0) return undefined;
          return Object.fromEntries(keys.slice(0, max).map((k) => [k, first[k]]));
        },
      };
    },

    /**
     * A response schema as the document shows it, with its example: `{ data: record }` or `{ data: [records],
     * count }` whose record is a named component gets a reference to it, and sample records as its example.
     */
    namedRecords(schema: TSchema): { schema: TSchema; example?: unknown } {
      const props = (schema as TObject).properties;
      const data = props?.data as (TSchema & { items?: TSchema }) | undefined;
      const one = data && bySchema.get(data);
      if (one)
        return {
          schema: { ...schema, properties: { ...props, data: ref(one.name) } } as TSchema,
          example: { data: one.samples[0] },
        };
      const many = data?.items && bySchema.get(data.items);
      if (!many) return { schema };
      const list = many.samples.slice(0, 2);
      return {
        schema: { ...schema, properties: { ...props, data: { ...data, items: ref(many.name) } } } as TSchema,
        example: { data: list, count: list.length, ...(props.total ? { total: list.length } : {}) },
      };
    },
  };
}
