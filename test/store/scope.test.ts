import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { CONTEXT_ON_PROMISE_HOOKS, TransactionScope, checksNesting } from '../../src/store/scope.ts';
import { NestedTransactionError } from '../../src/store/store.ts';

const major = Number(process.versions.node.split('.')[0]);
const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
/** Whether this runtime carries async context in frames: Node 24 on unless switched off, 22 when switched on. */
const frames =
  major >= 24 ? !flags.includes('--no-async-context-frame') : flags.includes('--experimental-async-context-frame');

test('the nesting check is known to cost every promise on this runtime exactly where it does', () => {
  assert.equal(CONTEXT_ON_PROMISE_HOOKS, !frames, `Node ${process.versions.node}`);
});

test('the service checks nesting when asked to, and always where it costs nothing', () => {
  assert.equal(checksNesting(true), true);
  assert.equal(checksNesting(false), !CONTEXT_ON_PROMISE_HOOKS);
});

test('a checked scope refuses inside an open transaction, across awaits; before and after, it allows', async () => {
  const scope = new TransactionScope();
  scope.assertOutside();
  let later: Promise<void> | undefined;
  await scope.run(async () => {
    await null;
    assert.throws(() => scope.assertOutside(), NestedTransactionError);
    later = new Promise((resolve) => setTimeout(resolve, 5)).then(() => scope.assertOutside());
  });
  await later; // work left behind runs once the transaction has closed
  scope.assertOutside();
});

test('an unchecked scope refuses nothing and runs the work as it is', async () => {
  const scope = new TransactionScope(false);
  const answer = await scope.run(async () => {
    await null;
    scope.assertOutside();
    return 'done';
  });
  assert.equal(answer, 'done');
});

/**
 * Whether a store's transaction leaves the process tracking its promises (`executionAsyncId()` is 0 in a promise's
 * continuation unless promise hooks are on): in a fresh process, since hooks once on stay on.
 */
function tracksPromises(checkNesting: boolean): boolean {
  const script = `
    import { executionAsyncId } from 'node:async_hooks';
    import { MemoryStore } from './src/store/memory/store.ts';
    const store = new MemoryStore({ checkNesting: ${checkNesting} });
    await store.transaction(async (tx) => tx.projects.list());
    const id = await (async () => { await null; return executionAsyncId(); })();
    process.stdout.write(String(id));`;
  const child = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    encoding: 'utf8',
  });
  assert.equal(child.status, 0, child.stderr);
  return child.stdout !== '0';
}

test('unchecked, a store keeps no async context: no promise of the process pays for one', () => {
  assert.equal(tracksPromises(false), false);
  assert.equal(tracksPromises(true), CONTEXT_ON_PROMISE_HOOKS, 'checked, it does where the runtime uses hooks');
});
