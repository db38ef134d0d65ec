// The layers of src/, enforced by `npm run lint` (docs/architecture.md draws them). Each layer imports only itself and
// the layers below it; nothing imports the entry; nothing but the entry wires webhook delivery; no import cycles.
//
//   entry     src/server.ts, src/app.ts; src/config.ts and src/config-schema.ts (the settings: read here, handed
//             down as values)
//   edge      src/http (the edge's toolkit: it imports no resource, stream or web app), src/resources, src/stream,
//             src/web (serves the browser app), src/metrics (the Prometheus metrics), src/tracing
//             (OpenTelemetry spans), src/data-file (the data file: its format, check and loader; it may read the
//             resources' rules)
//   domain    src/core, src/events, and the shared src/errors.ts, src/schemas
//   store     src/store
//   model     src/model (imports nothing else of the project)
//   delivery  src/webhooks → store, model (beside the layers: only the entry wires it)

/** Anything in src/ outside these paths. */
const outside = (...allowed) => `^src/(?!${allowed.join('|')})`;

/** The layers below the edge, which every part of the edge may import. */
const BELOW_EDGE = ['core/', 'events/', 'store/', 'model/', 'errors\\.ts', 'schemas/'];

/** A rule: `from` may not import `to`. */
const rule = (name, comment, from, to) => ({
  name,
  comment,
  severity: 'error',
  from: { path: from },
  to: { path: to },
});

module.exports = {
  forbidden: [
    rule(
      'model-imports-nothing',
      'src/model is the bottom: records, ids, the clock, the list query model. It imports nothing else of the project.',
      '^src/model/',
      outside('model/'),
    ),
    rule(
      'store-imports-model',
      'The store keeps records: it imports only the model, never core, events, resources, http or delivery.',
      '^src/store/',
      outside('store/', 'model/'),
    ),
    rule(
      'shared-below-domain',
      'The error catalogue and the shared schema helpers import only each other and the model.',
      '^src/(errors\\.ts|schemas/)',
      outside('errors\\.ts', 'schemas/', 'model/'),
    ),
    rule(
      'domain-below-edge',
      'core and events (the rules, the events and their consumers) import only the store, the model and the shared.',
      '^src/(core|events)/',
      outside(...BELOW_EDGE),
    ),
    rule(
      'http-names-no-resource',
      'src/http is the edge toolkit: it imports no resource, no stream, no web app and no delivery; those import it.',
      '^src/http/',
      outside('http/', ...BELOW_EDGE),
    ),
    rule(
      'resources-beside-stream',
      'Resources import http and the layers below, never the stream, the web app, delivery or the entry.',
      '^src/resources/',
      outside('resources/', 'http/', ...BELOW_EDGE),
    ),
    rule(
      'stream-beside-resources',
      'The event stream imports http and the layers below, never a resource, the web app, delivery or the entry.',
      '^src/stream/',
      outside('stream/', 'http/', ...BELOW_EDGE),
    ),
    rule(
      'web-beside-http',
      'src/web serves the browser app: it imports http and the layers below, never a resource, the stream or delivery.',
      '^src/web/',
      outside('web/', 'http/', ...BELOW_EDGE),
    ),
    rule(
      'metrics-beside-http',
      'src/metrics (the Prometheus metrics) imports http and the layers below, never a resource, the stream, the web app or delivery: they feed it through the ports the entry wires.',
      '^src/metrics/',
      outside('metrics/', 'http/', ...BELOW_EDGE),
    ),
    rule(
      'tracing-beside-http',
      'src/tracing (OpenTelemetry spans) imports http and the layers below, never a resource, the stream, the web app, the metrics or delivery: the entry wires it.',
      '^src/tracing/',
      outside('tracing/', 'http/', ...BELOW_EDGE),
    ),
    rule(
      'data-file-at-the-edge',
      "src/data-file (the data file format, its check and its loader) reads the resources' record rules, http's helpers and the layers below; the entry and the scripts use it, no resource does.",
      '^src/data-file/',
      outside('data-file/', 'resources/', 'http/', ...BELOW_EDGE),
    ),
    rule(
      'delivery-imports-store-and-model',
      'Webhook delivery (src/webhooks) imports only the store and the model; the entry wires it to the rest.',
      '^src/webhooks/',
      outside('webhooks/', 'store/', 'model/'),
    ),
    rule(
      'nothing-imports-the-entry',
      'server.ts and app.ts are the top: only server.ts imports app.ts.',
      '^src/(?!server\\.ts$)',
      '^src/(app|server)\\.ts$',
    ),
    rule(
      'settings-read-by-the-entry',
      'config.ts reads the settings (config-schema.ts) for the entry, which hands each part its values: only the entry imports them.',
      '^src/(?!(server|app|config)\\.ts$)',
      '^src/config(-schema)?\\.ts$',
    ),
    {
      name: 'no-cycles',
      comment: 'No import cycle in src/, type-only imports included.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|dist)' },
    // Type-only imports count: a store that imports a controller's type is how layers erode.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
};
