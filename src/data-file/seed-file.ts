import { basename } from 'node:path';
import type { Collections } from '../store/store.ts';
import { checkDataFile } from './check.ts';
import { loadDataFile } from './load.ts';
import { unreadable } from './read.ts';

/** A seed file that may not be loaded: one line per problem, fit to be shown as they are (no stack). */
export class SeedFileRefused extends Error {
  constructor(readonly lines: readonly string[]) {
    super(lines.join('\n'));
    this.name = 'SeedFileRefused';
  }
}

/**
 * At start, before the store opens: a `SEED_FILE` that cannot be read stops the start whether or not it is to be
 * loaded (a mistyped path shows at once, not on the day a store is reset).
 */
export async function assertReadable(path: string): Promise<void> {
  const problem = await unreadable(path);
  if (problem) throw new SeedFileRefused([`${basename(path)}: ${problem.message}`]);
}

/**
 * The store's seeder for `SEED_FILE`: checks the whole file, then loads it, in the transaction that fills the store.
 * It runs only when the store is to be filled (every start in memory; an empty durable store; `RESET_DATA`), so a
 * large file is not read again at every restart of a durable store. A bad file rejects with `SeedFileRefused`
 * before anything is written, and the transaction writes nothing.
 */
export function seedFromFile(path: string): (tx: Collections) => Promise<void> {
  return async (tx) => {
    const lines = await checkDataFile(path);
    if (lines.length > 0) throw new SeedFileRefused(lines);
    await loadDataFile(tx, path);
  };
}
