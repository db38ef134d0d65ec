import { qValue } from '../http/accept-encoding.ts';

/**
 * Whether a request's `Accept` header prefers `text/html` to `application/json` by its q-values (RFC 9110 §12.5.1),
 * as a browser's navigation does (`text/html,…,*\/*;q=0.8`). A tie, `*\/*` alone and no header answer false: curl
 * and scripts keep getting JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  // Every request is asked (the router's constraint): what names no text type and no weight gives JSON at least
  // HTML's quality, without parsing.
  if (!accept || !(accept.includes('text/') || accept.includes('q='))) return false;
  const ranges = parse(accept);
  return qualityOf(ranges, 'text', 'html') > qualityOf(ranges, 'application', 'json');
}

interface Range {
  type: string;
  subtype: string;
  q: number;
}

function parse(accept: string): Range[] {
  const ranges: Range[] = [];
  for (const part of accept.split(',')) {
    const [media = '', ...params] = part.split(';');
    const [type, subtype] = media.trim().toLowerCase().split('/');
    if (!type || !subtype) continue;
    let q = 1;
    for (const param of params) {
      const [name, value] = param.split('=').map((s) => s.trim());
      if (name?.toLowerCase() === 'q') q = qValue(value ?? '');
    }
    ranges.push({ type, subtype, q });
  }
  return ranges;
}

/** The q-value the most specific matching range gives a media type; 0 when none matches. */
function qualityOf(ranges: readonly Range[], type: string, subtype: string): number {
  let best: { specificity: number; q: number } | undefined;
  for (const range of ranges) {
    const specificity =
      range.type === type && range.subtype === subtype
        ? 2
        : range.type === type && range.subtype === '*'
          ? 1
          : range.type === '*' && range.subtype === '*'
            ? 0
            : -1;
    if (specificity < 0) continue;
    if (!best || specificity > best.specificity || (specificity === best.specificity && range.q > best.q))
      best = { specificity, q: range.q };
  }
  return best?.q ?? 0;
}
