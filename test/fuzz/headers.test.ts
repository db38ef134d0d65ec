import { test } from 'node:test';
import { headerRequest } from './arbitraries.ts';
import { fuzzRoutes, runs } from './harness.ts';

test('fuzz: content types, conditional headers, actors, request ids and raw bytes never break the service', async (t) => {
  await fuzzRoutes(t, 'headers', headerRequest, runs(1_500));
});
