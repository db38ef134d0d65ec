import { AsyncLocalStorage } from 'node:async_hooks';
import { NestedTransactionError } from './store.ts';

/**
 * Knows whether the calling code runs inside one of a store's open transactions (the async context follows the
 * transaction's work through every await), so that a nested `transaction` is refused rather than waiting forever
 * for the one around it. Work the transaction leaves behind (a timer it set) runs after it has closed: allowed.
 */
export class TransactionScope {
  private readonly current = new AsyncLocalStorage<{ open: boolean }>();

  /** Throws `NestedTransactionError` inside an open transaction. */
  assertOutside(): void {
    if (this.current.getStore()?.open) throw new NestedTransactionError();
  }

  /** Runs `work` as the open transaction of its async context. */
  run<R>(work: () => Promise<R>): Promise<R> {
    const state = { open: true };
    return this.current.run(state, () => work().finally(() => (state.open = false)));
  }
}
