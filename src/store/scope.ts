import { AsyncLocalStorage } from 'node:async_hooks';
import { NestedTransactionError } from './store.ts';

/**
 * Whether this runtime's `AsyncLocalStorage` follows the async context through promise hooks (Node 20, and 22
 * unless started with `--experimental-async-context-frame`; told by the hooks' `_propagate` on its prototype). Once
 * one is used there, every promise of the process pays for it: a webhook's delivery and the writes that cause it
 * are promise-heavy, and lose about a tenth of their speed (bench/HISTORY.md, "promises that carry no context").
 * Node 24 carries the context in frames, at no such cost.
 */
export const CONTEXT_ON_PROMISE_HOOKS = '_propagate' in AsyncLocalStorage.prototype;

/**
 * Whether the service's store checks that transactions do not nest: where the check costs nothing always, elsewhere
 * when `requested` (`CHECK_NESTED_TRANSACTIONS`). A nested transaction is a programming error of the service's own,
 * which every test catches with the check on.
 */
export function checksNesting(requested: boolean): boolean {
  return !CONTEXT_ON_PROMISE_HOOKS || requested;
}

/**
 * Knows whether the calling code runs inside one of a store's open transactions (the async context follows the
 * transaction's work through every await), so that a nested `transaction` is refused rather than waiting forever
 * for the one around it. Work the transaction leaves behind (a timer it set) runs after it has closed: allowed.
 * Unchecked (`checked` false), it knows nothing and refuses nothing: no async context is kept at all.
 */
export class TransactionScope {
  private readonly current: AsyncLocalStorage<{ open: boolean }> | undefined;

  constructor(checked = true) {
    this.current = checked ? new AsyncLocalStorage() : undefined;
  }

  /** Throws `NestedTransactionError` inside an open transaction. */
  assertOutside(): void {
    if (this.current?.getStore()?.open) throw new NestedTransactionError();
  }

  /** Runs `work` as the open transaction of its async context. */
  run<R>(work: () => Promise<R>): Promise<R> {
    if (!this.current) return work();
    const state = { open: true };
    return this.current.run(state, () => work().finally(() => (state.open = false)));
  }
}
