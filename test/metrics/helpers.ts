import parse from 'parse-prometheus-text-format';
import type { FastifyInstance } from 'fastify';

export type Family = ReturnType<typeof parse>[number];

/** The families of a scrape of `app`'s `GET /metrics`, by name, with the text. */
export async function scrape(app: FastifyInstance, headers: Record<string, string> = {}) {
  const res = await app.inject({ url: '/metrics', headers });
  if (res.statusCode !== 200) throw new Error(`GET /metrics answered ${res.statusCode}: ${res.body}`);
  return { text: res.body, families: byName(res.body), contentType: res.headers['content-type'] };
}

/**
 * The families (name, help, type; the samples of counters and gauges) by the exposition parser. It keeps neither the
 * labels nor the counts of a histogram's samples: {@link samples} reads those.
 */
export function byName(text: string): Map<string, Family> {
  return new Map(parse(text).map((family) => [family.name, family]));
}

/** The value of a counter or gauge sample with these labels (all of them), or undefined. */
export function valueOf(family: Family | undefined, labels: Record<string, string> = {}): number | undefined {
  const sample = family?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample?.value === undefined ? undefined : Number(sample.value);
}

export interface Sample {
  labels: Record<string, string>;
  value: number;
}

/** The sample lines of one series name (e.g. a histogram's `…_count`), their labels unescaped. */
export function samples(text: string, name: string): Sample[] {
  const found: Sample[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const labels: Record<string, string> = {};
    for (const [, key, raw] of (match[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[key!] = raw!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    }
    found.push({ labels, value: Number(match[3]) });
  }
  return found;
}

/** The value of the sample of `name` with these labels (all of them), or undefined. */
export function sampleOf(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  return samples(text, name).find((s) => Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
}
