import { existsSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Manifest } from './manifest.ts';
import { AppError } from '../errors.ts';
import { acceptsEncoding } from '../http/accept-encoding.ts';
import { prefersHtml } from './accept.ts';
import { pageHtml, PAGE_CSP, type PageSettings } from './page.ts';

/** Where `web/build.ts` writes the app; `manifest.json` there names its files. */
export const WEB_DIST = fileURLToPath(new URL('../../web/dist/', import.meta.url));

/**
 * The app's own paths: each answers the app's page to a browser (its view is chosen in the browser) and, like any
 * unknown path, a JSON 404 to everyone else. `/api/*` and `/docs` are never among them.
 */
export const VIEW_PATHS = [
  '/',
  '/projects',
  '/projects/*',
  '/tasks/*',
  '/teams',
  '/teams/*',
  '/activity',
  '/notifications',
  '/webhooks',
  '/webhooks/*',
  '/tokens',
  '/sign-in',
] as const;

const ASSET_TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

interface Asset {
  readonly type: string;
  readonly identity: Buffer;
  readonly gzip: Buffer;
  readonly br: Buffer;
}

/**
 * Serves the web app (web/): its page at the app's paths to a browser, with a Content-Security-Policy that allows
 * the service's own scripts and styles only, never cached; its hashed assets under `/assets/`, compressed (brotli or
 * gzip, made at build time) and cached for a year. Not built (`npm run build:web`): the page answers 503 saying so.
 */
export function registerWebApp(app: FastifyInstance, settings: PageSettings, dist: string = WEB_DIST): BrowserPage {
  const built = readBuild(dist);
  if (!built) app.log.warn(`the web app is not built (no ${join(dist, 'manifest.json')}): run npm run build:web`);
  const html = built && pageHtml(built.manifest, settings);

  const page = async (_request: FastifyRequest, reply: FastifyReply) => {
    if (!html) throw new AppError('SERVICE_UNAVAILABLE', 'The web app is not built: run npm run build:web');
    return reply
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', PAGE_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('vary', 'Accept')
      .send(html);
  };
  // Only these routes ask whether the request prefers HTML (a router constraint would ask every request): the
  // others get the JSON 404, as any unknown path; `/` is the service's index route, which asks the same.
  const pageFor: BrowserPage = (request, reply) =>
    prefersHtml(request.headers.accept) ? page(request, reply) : undefined;
  for (const url of VIEW_PATHS) {
    if (url === '/') continue;
    app.get(url, { schema: { hide: true } }, (request, reply) => pageFor(request, reply) ?? reply.callNotFound());
  }

  app.get<{ Params: { name: string } }>('/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const asset = built?.assets.get(request.params.name);
    if (!asset) return reply.callNotFound();
    const encoding = request.headers['accept-encoding'];
    const [body, coding] = acceptsEncoding(encoding, 'br')
      ? [asset.br, 'br']
      : acceptsEncoding(encoding, 'gzip')
        ? [asset.gzip, 'gzip']
        : [asset.identity, undefined];
    if (coding) reply.header('content-encoding', coding);
    return reply
      .header('content-type', asset.type)
      .header('cache-control', 'public, max-age=31536000, immutable')
      .header('x-content-type-options', 'nosniff')
      .header('vary', 'Accept-Encoding')
      .send(body);
  });
  return pageFor;
}

/** The app's page when the request prefers HTML to JSON (a browser's navigation), answered; undefined otherwise. */
export type BrowserPage = (request: FastifyRequest, reply: FastifyReply) => Promise<FastifyReply> | undefined;

function readBuild(dist: string): { manifest: Manifest; assets: Map<string, Asset> } | undefined {
  const manifestFile = join(dist, 'manifest.json');
  if (!existsSync(manifestFile)) return undefined;
  const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Manifest;
  const assets = new Map<string, Asset>();
  for (const name of [manifest.script, manifest.style, manifest.icon]) {
    assets.set(name, {
      type: ASSET_TYPES[extname(name)] ?? 'application/octet-stream',
      identity: readFileSync(join(dist, name)),
      gzip: readFileSync(join(dist, `${name}.gz`)),
      br: readFileSync(join(dist, `${name}.br`)),
    });
  }
  return { manifest, assets };
}
