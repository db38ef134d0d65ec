import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildApp } from '../../src/app.ts';

/**
 * The published contract, checked on every response the suite receives: each one must be listed in the
 * OpenAPI document (path template, method, status) and match its schema. The document comes from a fresh
 * app, once per process; the validator (ajv, 2020-12) is independent of the serializer that wrote the body.
 */

export interface OpenApiDoc {
  openapi: string;
  info: { title: string; version: string; description?: string };
  paths: Record<string, Record<string, Operation>>;
  components: { schemas: Record<string, object>; responses?: Record<string, Response> };
  [key: string]: unknown;
}
export interface Operation {
  operationId?: string;
  tags?: string[];
  summary?: string;
  description?: string;
  parameters?: { name: string; in: string; schema: object; example?: unknown }[];
  requestBody?: { required?: boolean; content: Record<string, { schema: object; example?: unknown }> };
  responses: Record<string, Response | { $ref: string }>;
}
export interface Response {
  description: string;
  headers?: Record<string, { required?: boolean; description?: string; schema: object }>;
  content?: Record<string, { schema: object; example?: unknown }>;
}

// The document's own pages: not operations of the API.
const UNDOCUMENTED = [/^\/api\/openapi\.json$/, /^\/docs(\/|$)/];
const DOC_ID = 'openapi.json';
const ERROR_SCHEMA = `${DOC_ID}#/components/schemas/ErrorResponse`;

let loaded: Promise<Contract> | undefined;

/** The contract of this process (built on first use). */
export function contract(): Promise<Contract> {
  loaded ??= (async () => {
    const app = await buildApp({ config: { logLevel: 'silent' }, seed: false });
    try {
      const res = await app.inject({ method: 'GET', url: '/api/openapi.json' });
      if (res.statusCode !== 200) throw new Error(`GET /api/openapi.json answered ${res.statusCode}: ${res.body}`);
      return new Contract(res.json() as OpenApiDoc);
    } finally {
      await app.close();
    }
  })();
  return loaded;
}

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: AddFormats }).default ??
  addFormatsModule) as unknown as AddFormats;

interface Template {
  path: string;
  segments: (string | null)[]; // null: a `{param}` segment
}

export interface Received {
  method: string;
  url: string;
  status: number;
  contentType: string | undefined;
  text: string;
  /** The answer's headers, names in lower case: when given, each the document requires must be there. */
  headers?: Record<string, unknown>;
}

export class Contract {
  private readonly ajv: Ajv2020;
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly templates: Template[];

  constructor(readonly doc: OpenApiDoc) {
    this.ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(this.ajv);
    this.ajv.addFormat('iso-instant', true); // a query-string format of the service; never in a response
    this.ajv.addSchema(doc, DOC_ID); // `$ref`s resolve against the whole document
    this.templates = Object.keys(doc.paths).map((path) => ({
      path,
      segments:
        path === '/'
          ? []
          : path
              .split('/')
              .slice(1)
              .map((s) => (/^\{.+\}$/.test(s) ? null : s)),
    }));
  }

  /** A validator for a JSON pointer into the document (compiled once). */
  validator(pointer: string): ValidateFunction {
    let v = this.validators.get(pointer);
    if (!v) {
      const ref = pointer.startsWith(DOC_ID) ? pointer : `${DOC_ID}#${pointer}`;
      v = this.ajv.compile({ $ref: ref });
      this.validators.set(pointer, v);
    }
    return v;
  }

  /** A response of an operation, its `$ref` to a response component resolved; with its JSON pointer. */
  response(template: string, method: string, status: string): { response: Response; pointer: string } | undefined {
    const listed = this.doc.paths[template]?.[method]?.responses[status];
    if (!listed) return undefined;
    if ('$ref' in listed) {
      const name = listed.$ref.replace('#/components/responses/', '');
      return { response: this.doc.components.responses![name]!, pointer: `/components/responses/${escape(name)}` };
    }
    return { response: listed, pointer: `/paths/${escape(template)}/${method}/responses/${status}` };
  }

  /**
   * The documented path template serving a concrete path with this method, as the router picks it: among the
   * templates with this method, static segments win over parameters, leftmost first. Undefined if none.
   */
  templateFor(method: string, path: string): string | undefined {
    let decoded: string[];
    try {
      decoded = path.replace(/\/$/, '').split('/').slice(1).map(decodeURIComponent);
    } catch {
      return undefined; // not a valid URL: refused before routing
    }
    const m = method.toLowerCase();
    let best: { path: string; score: string } | undefined;
    for (const t of this.templates) {
      if (!this.doc.paths[t.path]![m] || t.segments.length !== decoded.length) continue;
      if (!t.segments.every((s, i) => (s === null ? decoded[i] !== '' : s === decoded[i]))) continue;
      const score = t.segments.map((s) => (s === null ? '0' : '1')).join('');
      if (!best || score > best.score) best = { path: t.path, score };
    }
    return best?.path;
  }

  /** Problems of one response with the contract, or an empty list. */
  check(r: Received): string[] {
    const path = r.url.split('?', 1)[0]!.replace(/(.)\/$/, '$1'); // a trailing slash is ignored, as the router does
    const method = r.method.toUpperCase();
    if (UNDOCUMENTED.some((p) => p.test(path)) && r.status < 400) return [];
    // HEAD is GET without a body; a CORS preflight is no operation (204, no body).
    if (method === 'OPTIONS' && r.status === 204 && r.text === '') return [];
    const template = this.templateFor(method === 'HEAD' ? 'GET' : method, path);
    if (!template) {
      if (r.status < 400) return [`${method} ${path} answered ${r.status}, but the document has no such operation`];
      return this.checkBody(r, ERROR_SCHEMA, `${method} ${path} (no operation: the shared error)`);
    }
    const opKey = method === 'HEAD' ? 'get' : method.toLowerCase();
    const where = `${method} ${path} (${opKey.toUpperCase()} ${template} → ${r.status})`;
    const found = this.response(template, opKey, String(r.status));
    if (!found) {
      const listed = Object.keys(this.doc.paths[template]![opKey]!.responses).join(', ');
      return [`${where}: status ${r.status} is not documented (listed: ${listed}); body ${r.text.slice(0, 300)}`];
    }
    const missing = Object.entries(found.response.headers ?? {})
      .filter(([name, header]) => header.required && r.headers && r.headers[name.toLowerCase()] === undefined)
      .map(([name]) => `${where}: the document requires the header ${name}, which the answer lacks`);
    if (missing.length > 0) return missing;
    if (method === 'HEAD') return r.text === '' ? [] : [`${where}: HEAD answered with a body`];
    const media = found.response.content?.['application/json'];
    if (!media) return r.text === '' ? [] : [`${where}: documented without a body, answered ${r.text.slice(0, 300)}`];
    return this.checkBody(r, `${found.pointer}/content/application~1json/schema`, where);
  }

  private checkBody(r: Received, pointer: string, where: string): string[] {
    if (!r.contentType?.startsWith('application/json')) {
      return [`${where}: content-type ${r.contentType ?? '(none)'}, expected application/json`];
    }
    let body: unknown;
    try {
      body = JSON.parse(r.text);
    } catch {
      return [`${where}: body is not JSON: ${r.text.slice(0, 300)}`];
    }
    const validate = this.validator(pointer);
    if (validate(body)) return [];
    const errors = (validate.errors ?? []).map((e) => `${e.instancePath || '(root)'} ${e.message}`);
    return [`${where}: body does not match the document: ${errors.join('; ')}; body ${r.text.slice(0, 500)}`];
  }
}

/** A path as a JSON pointer token. */
export function escape(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}
