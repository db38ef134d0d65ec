/**
 * Whether a request's `Accept-Encoding` lets the answer be gzip (RFC 9110 §12.5.3): `gzip` (or its alias `x-gzip`),
 * else `*`, with a weight above 0, and not below the weight the client gives identity when it gives one (`identity`,
 * else `*`). No header, or a weight that is not one (`q=abc`, `q=2`): identity, which is always safe.
 */
export function acceptsGzip(header: string | string[] | undefined): boolean {
  return acceptsEncoding(header, 'gzip');
}

/** Whether `Accept-Encoding` lets the answer be in `coding` (`gzip`, `br`), by the rules `acceptsGzip` says. */
export function acceptsEncoding(header: string | string[] | undefined, coding: string): boolean {
  if (header === undefined) return false;
  const weights = new Map<string, number>();
  for (const item of (Array.isArray(header) ? header.join(',') : header).split(',')) {
    const [name = '', ...params] = item.split(';').map((part) => part.trim());
    if (name === '') continue;
    let q = 1;
    for (const param of params) {
      const match = /^q\s*=\s*(.*)$/i.exec(param);
      if (match) q = qValue(match[1]!);
    }
    const named = name.toLowerCase() === 'x-gzip' ? 'gzip' : name.toLowerCase();
    weights.set(named, Math.max(q, weights.get(named) ?? 0));
  }
  const any = weights.get('*');
  const wanted = weights.get(coding) ?? any ?? 0;
  const identity = weights.get('identity') ?? any ?? 0;
  return wanted > 0 && wanted >= identity;
}

/** A `q` value (0 to 1, up to three decimals); anything else weighs 0. */
export function qValue(text: string): number {
  return /^(0(\.\d{0,3})?|1(\.0{0,3})?)$/.test(text) ? Number(text) : 0;
}
