import assert from 'node:assert/strict';
import { test } from 'node:test';
import { acceptsGzip } from '../../src/http/accept-encoding.ts';

test('Accept-Encoding: gzip when listed (or * is) with a weight above 0 and not below identity', () => {
  const cases: [string | undefined, boolean][] = [
    [undefined, false],
    ['', false],
    ['gzip', true],
    ['GZip', true],
    ['x-gzip', true],
    ['gzip, deflate, br', true],
    ['br, gzip;q=0.8', true],
    ['deflate, br', false],
    ['identity', false],
    ['*', true],
    ['*;q=0.5', true],
    ['gzip;q=0', false],
    ['gzip; q=0.000', false],
    ['gzip;Q=0.001', true],
    ['*, gzip;q=0', false],
    ['gzip;q=0, *', false],
    ['*;q=0', false],
    ['gzip;q=0.5, identity', false],
    ['gzip;q=0.5, identity;q=0.5', true],
    ['gzip;q=0.5, *;q=0.9', false],
    ['gzip;q=0.5, identity;q=0', true],
    ['gzip;q=abc', false],
    ['gzip;q=2', false],
    ['gzip;q=1.000', true],
    [' gzip ; q=0.7 , deflate', true],
  ];
  for (const [header, expected] of cases) assert.equal(acceptsGzip(header), expected, JSON.stringify(header));
  assert.equal(acceptsGzip(['deflate', 'gzip']), true);
});
