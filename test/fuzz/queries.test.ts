import { test } from 'node:test';
import { queryRequest } from './arbitraries.ts';
import { fuzzRoutes, runs } from './harness.ts';

test('fuzz: generated query strings (duplicates, bad encoding, edge values) never break the service', async (t) => {
  await fuzzRoutes(t, 'queries', queryRequest, runs(2_500));
});
