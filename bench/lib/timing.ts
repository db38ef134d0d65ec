/** Time per operation of an in-process call: warm-up, then batches; the median batch divided by its size. */
export async function perOp(
  op: () => Promise<unknown>,
  opts: { batches?: number; batch?: number; warmup?: number } = {},
): Promise<number> {
  const { batches = 15, batch = 20, warmup = 20 } = opts;
  for (let i = 0; i < warmup; i++) await op();
  const times: number[] = [];
  for (let b = 0; b < batches; b++) {
    const t0 = performance.now();
    for (let i = 0; i < batch; i++) await op();
    times.push((performance.now() - t0) / batch);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1]!;
}

/** Heap and RSS after a full collection (node must run with --expose-gc). */
export function memory(): { heapUsed: number; heapTotal: number; rss: number } {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run node with --expose-gc');
  gc();
  gc();
  const m = process.memoryUsage();
  return { heapUsed: m.heapUsed, heapTotal: m.heapTotal, rss: m.rss };
}
