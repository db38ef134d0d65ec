import { test } from 'node:test';
import { pathRequest } from './arbitraries.ts';
import { fuzzRoutes, runs } from './harness.ts';

test('fuzz: hostile ids, malformed paths and any method on every route never break the service', async (t) => {
  await fuzzRoutes(t, 'paths', pathRequest, runs(2_500));
});
