/**
 * The path patterns the service serves and their methods, so an unmatched request can be told apart:
 * a known path with another method is 405 (with `Allow`), anything else 404.
 */
export class RouteTable {
  private readonly routes: { segments: string[]; methods: Set<string> }[] = [];

  add(pattern: string, methods: string | string[]): void {
    const segments = split(pattern);
    let entry = this.routes.find((r) => r.segments.join('/') === segments.join('/'));
    if (!entry) {
      entry = { segments, methods: new Set() };
      this.routes.push(entry);
    }
    for (const m of [methods].flat()) entry.methods.add(m.toUpperCase());
  }

  /** Methods allowed on a concrete path; empty when no pattern matches it. */
  methodsFor(path: string): string[] {
    const segments = split(path);
    const methods = new Set<string>();
    for (const r of this.routes) {
      if (
        r.segments.length === segments.length &&
        r.segments.every((s, i) => (s.startsWith(':') ? segments[i] !== '' : s === segments[i]))
      ) {
        for (const m of r.methods) methods.add(m);
      }
    }
    return [...methods].sort();
  }
}

/**
 * The segments of a path. One trailing slash is ignored (as the router does); an empty segment inside the path
 * (`/api//tasks`) is kept, so that a path the router does not match is not taken for a known one (404, not 405).
 */
function split(path: string): string[] {
  const segments = path.split('/');
  if (segments[0] === '') segments.shift();
  if (segments.length > 0 && segments[segments.length - 1] === '') segments.pop();
  return segments;
}
