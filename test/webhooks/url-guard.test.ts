import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import {
  classifyAddress,
  guardedLookup,
  refusalReason,
  RefusedAddressError,
  type RefusedKind,
} from '../../src/webhooks/url-guard.ts';
import { deliveringApp } from './helpers.ts';

// Classifier only: nothing here connects anywhere.
const TABLE: [string, RefusedKind | null][] = [
  // IPv4
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['10.0.0.1', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.1.1', 'private'],
  ['169.254.1.1', 'link-local'],
  ['169.254.169.254', 'metadata'],
  ['168.63.129.16', 'metadata'],
  ['100.64.0.1', 'carrier-grade NAT'],
  ['100.127.255.255', 'carrier-grade NAT'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.250', 'multicast'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['192.0.2.1', 'reserved'],
  ['198.18.0.1', 'reserved'],
  ['93.184.216.34', null],
  ['8.8.8.8', null],
  ['172.32.0.1', null],
  ['100.128.0.1', null],
  ['11.0.0.1', null],
  // IPv6
  ['::1', 'loopback'],
  ['::', 'unspecified'],
  ['fc00::1', 'private'],
  ['fd12:3456::1', 'private'],
  ['fd00:ec2::254', 'metadata'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['fec0::1', 'private'],
  ['ff02::1', 'multicast'],
  ['2001:db8::1', 'reserved'],
  ['::7f00:1', 'reserved'],
  ['2606:4700:4700::1111', null],
  ['2a00:1450:4001:80b::200e', null],
  // IPv4-mapped and IPv4-embedding IPv6
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:10.1.2.3', 'private'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::ffff:93.184.216.34', null],
  ['64:ff9b::127.0.0.1', 'loopback'],
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['64:ff9b::93.184.216.34', null],
  ['2002:c0a8:0101::1', 'private'],
  ['2002:5db8:d822::1', null],
  // not addresses
  ['localhost', 'reserved'],
  ['127.1', 'reserved'],
  ['', 'reserved'],
];

for (const [address, expected] of TABLE) {
  test(`classifyAddress(${JSON.stringify(address)}) is ${expected ?? 'allowed'}`, () => {
    assert.equal(classifyAddress(address), expected);
  });
}

test('refusalReason names the address, what it is and how to allow it', () => {
  assert.equal(
    refusalReason('127.0.0.1', 'loopback'),
    'refused: 127.0.0.1 is a loopback address (set WEBHOOK_ALLOW_PRIVATE=true to allow)',
  );
  assert.equal(
    refusalReason('::', 'unspecified'),
    'refused: :: is an unspecified address (set WEBHOOK_ALLOW_PRIVATE=true to allow)',
  );
  assert.equal(
    refusalReason('169.254.169.254', 'metadata', 'evil.test'),
    'refused: evil.test resolves to 169.254.169.254, which is a cloud metadata address (set WEBHOOK_ALLOW_PRIVATE=true to allow)',
  );
});

/** A resolver that answers from a table, as `dns.lookup` would with `all: true`. */
function fakeLookup(table: Record<string, string[]>): LookupFunction {
  return (hostname, _options, callback) => {
    const list: LookupAddress[] = (table[hostname] ?? []).map((address) => ({
      address,
      family: address.includes(':') ? 6 : 4,
    }));
    process.nextTick(() => callback(null, list));
  };
}

function resolve(lookup: LookupFunction, hostname: string, all: boolean) {
  return new Promise<{ err: NodeJS.ErrnoException | null; address: string | LookupAddress[]; family?: number }>(
    (done) => lookup(hostname, { all }, (err, address, family) => done({ err, address, family })),
  );
}

test('guardedLookup passes public answers through, in both callback shapes', async () => {
  const lookup = guardedLookup(fakeLookup({ 'hooks.example': ['93.184.216.34', '2606:4700:4700::1111'] }));
  const one = await resolve(lookup, 'hooks.example', false);
  assert.equal(one.err, null);
  assert.equal(one.address, '93.184.216.34');
  assert.equal(one.family, 4);
  const all = await resolve(lookup, 'hooks.example', true);
  assert.deepEqual(all.address, [
    { address: '93.184.216.34', family: 4 },
    { address: '2606:4700:4700::1111', family: 6 },
  ]);
});

test('guardedLookup refuses a name when any address it resolves to is refused', async () => {
  const lookup = guardedLookup(
    fakeLookup({ 'evil.test': ['127.0.0.1'], 'mixed.test': ['93.184.216.34', '::ffff:169.254.169.254'] }),
  );
  const evil = await resolve(lookup, 'evil.test', false);
  assert.ok(evil.err instanceof RefusedAddressError);
  assert.equal(evil.err.kind, 'loopback');
  assert.match(evil.err.message, /^refused: evil\.test resolves to 127\.0\.0\.1, which is a loopback address/);
  const mixed = await resolve(lookup, 'mixed.test', true);
  assert.ok(mixed.err instanceof RefusedAddressError);
  assert.equal(mixed.err.kind, 'metadata');
  const none = await resolve(lookup, 'nothing.test', true);
  assert.equal(none.err?.code, 'ENOTFOUND');
});

test('reserved names (RFC 2606/6761) are refused before any connection, for good; other names are attempted', async () => {
  const { precheck } = await import('../../src/webhooks/send.ts');
  for (const name of [
    'hooks.example.com',
    'example.org',
    'ci.example.net',
    'legacy.invalid',
    'a.b.example',
    'EXAMPLE.COM.',
  ]) {
    const result = precheck(`https://${name}/hook`);
    assert.equal(result?.outcome, 'invalid', name);
    assert.match(String(result?.error), /ENOTFOUND .*a reserved name: never resolves; not retried/, name);
  }
  assert.equal(precheck('https://hooks.example.community/hook'), null);
  assert.equal(precheck('https://myexample.com/hook'), null);
  assert.equal(precheck('ftp://example.org/x')?.error, 'invalid url: ftp: is not http or https');
});

test('the seeded webhooks, on reserved hosts, fail locally and for good: no connection, no DNS query, no retry', async (t) => {
  const lookups: string[] = [];
  const lookup: LookupFunction = (hostname, _options, callback) => {
    lookups.push(hostname);
    callback(new Error('no DNS in this test'), '', 4);
  };
  const { api, timers, watched } = await deliveringApp(t, { lookup });
  await api.post('/api/tasks', { projectId: 'proj_001', title: 'Seeded hooks' });
  await watched.until(2); // wh_001 (task.*) and wh_003 (*)
  const log = (await api.get('/api/webhooks/wh_001/deliveries')).body.data;
  assert.equal(log.length, 1);
  assert.equal(log[0].status, 'failed');
  assert.equal(log[0].eventType, 'task.created');
  assert.match(log[0].error, /ENOTFOUND hooks\.example\.com \(a reserved name: never resolves; not retried\)/);
  assert.equal(log[0].nextAttemptAt, null, 'a name that can never resolve is not retried');
  assert.deepEqual(timers.pending, []);
  assert.deepEqual(lookups, []);
});
