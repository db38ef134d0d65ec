import type { TObject } from 'typebox';
import type { ServiceDeps } from '../core/resource-service.ts';
import type { KindNames } from '../core/names.ts';
import type { Component, ResourceDocs } from '../http/api-docs.ts';
import { registerCrudRoutes, type CrudRoutes, type CrudService } from '../http/crud.ts';
import type { ListSpec } from '../model/list.ts';
import type { TypedApp } from '../http/typed.ts';
import type { Services } from './services.ts';

/**
 * One resource as the app and its document see it. Adding a resource is adding a folder with its schema, its
 * service and one of these, and naming them in `resources/index.ts` and `resources/services.ts`.
 */
export interface Resource extends ResourceDocs {
  /** Registers its routes, each calling its service. */
  routes(app: TypedApp, services: Services, deps: ServiceDeps): void;
}

/** What the standard routes take from a resource's rules: its names, its create body, whether it has an update. */
export interface CrudRules {
  readonly names: KindNames;
  readonly createSchema: TObject;
  readonly apply?: unknown;
}

/** A resource served by the standard routes (`http/crud.ts`), and any routes of its own. */
export interface CrudResource {
  /** The tag's description on the docs page. */
  readonly description: string;
  /** Sample records in the collection's shape; they also illustrate the record's component. */
  readonly samples: readonly { id: string }[];
  /** The record, the list's query (absent: none), the update body (PUT when the rules replace, else PATCH). */
  readonly schemas: { readonly record: TObject; readonly query?: TObject; readonly update?: TObject };
  /** The list's sortable, range and searchable fields. */
  readonly list: ListSpec;
  /** The collection's shape of a record, when it differs from the single-record shape. */
  readonly listItem?: CrudRoutes['listItem'];
  /** The create answer's shape, when it is not the record's. */
  readonly createResponse?: TObject;
  /** More components than the record's own (`Team` has `TeamSummary`). */
  readonly components?: readonly Component[];
  /** Answer shapes the document names (`MarkedRead`), by component name. */
  readonly shapes?: ResourceDocs['shapes'];
  /** What the standard routes need of a token beyond the default (`read` to read, `write` to change). */
  readonly scopes?: CrudRoutes['scopes'];
  /** Routes beyond the standard ones. */
  readonly more?: (app: TypedApp, services: Services, deps: ServiceDeps) => void;
}

/**
 * A resource with the standard routes: list, get, create, delete, and update when its rules have one. Its
 * service is the one named as its store collection is (`services.timeEntries`).
 */
export function crudResource(rules: CrudRules, r: CrudResource): Resource {
  const { names, createSchema, apply } = rules;
  const { record, query, update } = r.schemas;
  const routes: CrudRoutes = {
    names,
    record,
    query,
    list: r.list,
    listItem: r.listItem,
    create: { body: createSchema, response: r.createResponse },
    update: apply && update ? { method: apply === 'replace' ? 'PUT' : 'PATCH', body: update } : undefined,
    remove: true,
    scopes: r.scopes,
  };
  return {
    tag: { name: names.tag, description: r.description },
    collection: { path: names.path, label: names.label, samples: r.samples },
    components: [{ name: names.component, schema: record, samples: r.samples }, ...(r.components ?? [])],
    shapes: r.shapes,
    routes(app, services, deps) {
      const service = services[names.storeKey as keyof Services] as CrudService | undefined;
      if (!service) throw new Error(`no service named ${names.storeKey}`);
      registerCrudRoutes(app, routes, service);
      r.more?.(app, services, deps);
    },
  };
}
