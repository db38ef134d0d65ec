// The layers of src/, enforced by `npm run lint` (docs/architecture.md draws them). Each layer imports only itself and
// the layers below it; nothing imports the entry; nothing but the entry wires webhook delivery; no import cycles.
//
//   entry     src/server.ts, src/app.ts
//   edge      src/http, src/resources, src/stream       (http is the edge's toolkit: it imports no resource or stream)
//   domain    src/core, src/events, and the shared src/errors.ts, src/schemas, src/config.ts
//   store     src/store
//   model     src/model                                  (imports nothing else of the project)
//   delivery  src/webhooks → store, model                (beside the layers: only the entry wires it)

/** Paths of src/ as the rules match them. */
const SHARED = 'src/(errors\\.ts|schemas/|config\\.ts)';

/**
 * TEMPORARY: imports that break a rule today and are being removed elsewhere, each by its exact source and target.
 * The webhook outbox contract (src/webhooks/outbox.ts) moves to src/store/outbox.ts and the event shape of
 * src/webhooks/types.ts to src/events/, with src/webhooks/dispatcher.ts split into parts; until
 * then these files reach into src/webhooks, and src/webhooks/options.ts reads the service's defaults from config.ts.
 * Remove a line as its import goes; add none.
 */
const TEMPORARY = [
  // The store's transactions hold the outbox, whose contract still lives in src/webhooks.
  ['src/store/store.ts', 'src/webhooks/outbox.ts'],
  ['src/store/memory/deliveries.ts', 'src/webhooks/outbox.ts'],
  ['src/store/memory/undo.ts', 'src/webhooks/outbox.ts'],
  ['src/store/sql/deliveries.ts', 'src/webhooks/outbox.ts'],
  ['src/store/sql/store.ts', 'src/webhooks/outbox.ts'],
  // The webhook consumer writes outbox rows of the outbound event's shape.
  ['src/events/webhooks.ts', 'src/webhooks/outbox.ts'],
  ['src/events/webhooks.ts', 'src/webhooks/types.ts'],
  // The deliveries' routes and service read the delivery log and the delivery record.
  ['src/resources/webhooks/deliveries.ts', 'src/webhooks/outbox.ts'],
  ['src/resources/webhooks/deliveries.ts', 'src/webhooks/types.ts'],
  ['src/resources/webhooks/resource.ts', 'src/webhooks/types.ts'],
  ['src/resources/webhooks/routes.ts', 'src/webhooks/outbox.ts'],
  ['src/resources/webhooks/routes.ts', 'src/webhooks/types.ts'],
  // The stream's entries are the outbound events' bodies.
  ['src/stream/entries.ts', 'src/webhooks/types.ts'],
  // Delivery's settings default to the service's own.
  ['src/webhooks/options.ts', 'src/config.ts'],
];

/** A cycle inside src/webhooks, between its options and its outbox, which the split of the dispatcher undoes. */
const TEMPORARY_CYCLE = 'src/webhooks/(options|outbox)\\.ts';

const exact = (file) => `^${file.replaceAll('.', '\\.')}$`;

/**
 * A rule (`from` may not import `to`) with the TEMPORARY imports it would refuse let through: each source with an
 * exception gets a rule of its own that refuses the same targets but its listed ones.
 */
function layerRule(name, comment, from, to) {
  const toRe = new RegExp(to);
  const fromRe = new RegExp(from);
  const excepted = new Map();
  for (const [source, target] of TEMPORARY) {
    if (fromRe.test(source) && toRe.test(target)) excepted.set(source, [...(excepted.get(source) ?? []), target]);
  }
  const rules = [
    {
      name,
      comment,
      severity: 'error',
      from: { path: from, pathNot: [...excepted.keys()].map(exact) },
      to: { path: to },
    },
  ];
  for (const [source, targets] of excepted) {
    rules.push({
      name,
      comment: `${comment} (TEMPORARY exceptions: ${targets.join(', ')})`,
      severity: 'error',
      from: { path: exact(source) },
      to: { path: to, pathNot: targets.map(exact) },
    });
  }
  return rules;
}

/** Anything in src/ outside these paths. */
const outside = (...allowed) => `^src/(?!${allowed.join('|')})`;

module.exports = {
  forbidden: [
    ...layerRule(
      'model-imports-nothing',
      'src/model is the bottom: records, ids, the clock, the list query model. It imports nothing else of the project.',
      '^src/model/',
      outside('model/'),
    ),
    ...layerRule(
      'store-imports-model',
      'The store keeps records: it imports only the model, never core, events, resources, http or delivery.',
      '^src/store/',
      outside('store/', 'model/'),
    ),
    ...layerRule(
      'shared-below-domain',
      'The error catalogue, the shared schema helpers and the settings import only each other and the model.',
      `^${SHARED}`,
      outside('errors\\.ts', 'schemas/', 'config\\.ts', 'model/'),
    ),
    ...layerRule(
      'domain-below-edge',
      'core and events (the rules, the events and their consumers) import only the store, the model and the shared.',
      '^src/(core|events)/',
      outside('core/', 'events/', 'store/', 'model/', 'errors\\.ts', 'schemas/', 'config\\.ts'),
    ),
    ...layerRule(
      'http-names-no-resource',
      'src/http is the edge toolkit: it imports no resource, no stream and no delivery; those import it.',
      '^src/http/',
      outside('http/', 'core/', 'events/', 'store/', 'model/', 'errors\\.ts', 'schemas/', 'config\\.ts'),
    ),
    ...layerRule(
      'resources-beside-stream',
      'Resources import http and the layers below, never the stream, delivery or the entry.',
      '^src/resources/',
      outside('resources/', 'http/', 'core/', 'events/', 'store/', 'model/', 'errors\\.ts', 'schemas/', 'config\\.ts'),
    ),
    ...layerRule(
      'stream-beside-resources',
      'The event stream imports http and the layers below, never a resource, delivery or the entry.',
      '^src/stream/',
      outside('stream/', 'http/', 'core/', 'events/', 'store/', 'model/', 'errors\\.ts', 'schemas/', 'config\\.ts'),
    ),
    ...layerRule(
      'delivery-imports-store-and-model',
      'Webhook delivery (src/webhooks) imports only the store and the model; the entry wires it to the rest.',
      '^src/webhooks/',
      outside('webhooks/', 'store/', 'model/'),
    ),
    ...layerRule(
      'nothing-imports-the-entry',
      'server.ts and app.ts are the top: only server.ts imports app.ts.',
      '^src/(?!server\\.ts$)',
      '^src/(app|server)\\.ts$',
    ),
    {
      name: 'no-cycles',
      comment: 'No import cycle in src/, type-only imports included.',
      severity: 'error',
      from: { path: '^src/', pathNot: `^${TEMPORARY_CYCLE}$` },
      to: { circular: true },
    },
    {
      name: 'no-cycles',
      comment: 'No import cycle in src/ (TEMPORARY: the cycle between the webhook options and outbox).',
      severity: 'error',
      from: { path: `^${TEMPORARY_CYCLE}$` },
      to: { circular: true, pathNot: `^${TEMPORARY_CYCLE}$` },
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
