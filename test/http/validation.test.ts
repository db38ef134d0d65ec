import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Type } from 'typebox';
import { toDetails, validatorCompiler } from '../../src/http/validation.ts';

type Check = ((data: unknown) => boolean) & { errors?: Parameters<typeof toDetails>[0] | null };
const compile = (schema: object, httpPart: string) =>
  validatorCompiler({ schema, httpPart, method: 'GET', url: '/t' }) as unknown as Check;

const Query = Type.Object({
  n: Type.Optional(Type.Integer()),
  x: Type.Optional(Type.Number()),
  s: Type.Optional(Type.String()),
});

test('numbers in a query string count only as written: digits for an integer; a fraction, no exponent, for a number', () => {
  const check = compile(Query, 'querystring');
  for (const [n, x] of [
    ['12', '1.5'],
    ['-3', '2000'],
    ['007', '-0.0025'],
  ]) {
    const data: Record<string, unknown> = { n, x };
    assert.equal(check(data), true, `${n} ${x}`);
    assert.equal(check.errors, null);
    assert.equal(typeof data.n, 'number', 'still read as a number');
  }
  for (const [field, value] of <[string, string][]>[
    ['n', '0x10'],
    ['n', '1.0'],
    ['n', ' 1'],
    ['n', '+1'],
    ['x', '0x10'],
    ['x', '.5'],
    ['x', 'Infinity'],
    ['x', '1e'],
    ['x', '2e3'],
    ['x', '1E3'],
    ['x', '-0.25E-2'],
    ['x', '2.5e0'],
  ]) {
    assert.equal(check({ [field]: value }), false, `${field}=${value}`);
    assert.deepEqual(
      toDetails(check.errors!, 'querystring'),
      [{ field, message: field === 'n' ? 'must be an integer' : 'must be a number' }],
      `${field}=${value}`,
    );
  }
  // With ajv's own errors after it: both fields named.
  assert.equal(check({ n: '0x10', x: 'abc' }), false);
  assert.deepEqual(
    toDetails(check.errors!, 'querystring').map((d) => d.field),
    ['n', 'x'],
  );
});

test("a text part without numbers, and bodies, keep ajv's validator as it is (bodies are never coerced)", () => {
  const strings = compile(Type.Object({ s: Type.String() }), 'querystring');
  assert.equal(strings({ s: '0x10' }), true);
  const body = compile(Type.Object({ n: Type.Integer() }), 'body');
  assert.equal(body({ n: '12' }), false, 'a body\'s "12" is a string');
  assert.equal(body({ n: 12 }), true);
});

test('a body loses the properties its schema does not declare, at any depth; a free-form record keeps all of its', () => {
  const body = compile(
    Type.Object({
      name: Type.String(),
      members: Type.Optional(Type.Array(Type.Object({ username: Type.String() }))),
      metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    }),
    'body',
  );
  const data = {
    name: 'x',
    id: 'team_999',
    members: [{ username: 'a', role: 'lead', extra: { x: 1 } }],
    metadata: { any: { nested: { deep: [1, { k: 'v' }] } }, id: 'kept' },
  };
  assert.equal(body(data), true);
  assert.deepEqual(data, {
    name: 'x',
    members: [{ username: 'a' }],
    metadata: { any: { nested: { deep: [1, { k: 'v' }] } }, id: 'kept' },
  });
  // A query string keeps ajv's usual rule: only what `additionalProperties: false` closes is dropped.
  const query = compile(Type.Object({ s: Type.Optional(Type.String()) }), 'querystring');
  const params: Record<string, unknown> = { s: 'a', other: 'b' };
  assert.equal(query(params), true);
  assert.deepEqual(params, { s: 'a', other: 'b' });
});
