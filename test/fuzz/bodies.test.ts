import { test } from 'node:test';
import { bodyRequest } from './arbitraries.ts';
import { fuzzRoutes, runs } from './harness.ts';

test('fuzz: generated bodies on every route that takes one never break the service, and refused ones change nothing', async (t) => {
  await fuzzRoutes(t, 'bodies', bodyRequest, runs(4_000));
});
