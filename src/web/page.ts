import type { Manifest } from './manifest.ts';

/** What the page tells the app before it makes any request: how it is to say who its user is. */
export interface PageSettings {
  readonly auth: 'none' | 'token';
}

/**
 * The page's policy: scripts, styles, images and connections from this service only; no inline script or style
 * element, no plugin, no framing, no `<base>`. (Styles the app sets through the DOM, such as a virtual list's
 * offsets, are not inline markup and are allowed.)
 */
export const PAGE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** The app's one page: its assets, the `AUTH` mode in a meta element, and a line for a browser without scripts. */
export function pageHtml(manifest: Manifest, settings: PageSettings): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<meta name="pm-auth" content="${settings.auth}">
<title>pm-service</title>
<link rel="icon" href="/assets/${manifest.icon}" type="image/svg+xml">
<link rel="stylesheet" href="/assets/${manifest.style}">
<script type="module" src="/assets/${manifest.script}"></script>
</head>
<body>
<div id="app"></div>
<noscript>This app needs JavaScript. The API is at <a href="/docs">/docs</a>.</noscript>
</body>
</html>
`;
}
