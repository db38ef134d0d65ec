import assert from 'node:assert/strict';
import { errorOf, type Res } from '../helpers/app.ts';

export const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * Asserts the one error answer of CONTRACT §2: the status and code, the JSON content type, a body of exactly
 * `{ error: { code, message, details? } }` (each detail exactly `{ field, message }`), and nothing internal
 * (no HTML, no stack trace). Returns the `error` object.
 */
export function assertError(res: Res, status: number, code: string): ReturnType<typeof errorOf> {
  assert.equal(res.status, status, `${res.status} ${res.text.slice(0, 200)}`);
  assert.equal(res.headers['content-type'], JSON_TYPE);
  assert.deepEqual(Object.keys(res.body ?? {}), ['error'], res.text.slice(0, 200));
  const e = errorOf(res);
  assert.equal(e.code, code, res.text.slice(0, 200));
  assert.ok(e.message.length > 0);
  for (const key of Object.keys(e)) assert.ok(['code', 'message', 'details'].includes(key), `unexpected key ${key}`);
  if (e.details !== undefined) {
    assert.ok(Array.isArray(e.details) && e.details.length > 0, 'details, when present, is a non-empty array');
    for (const d of e.details) {
      assert.deepEqual(Object.keys(d).sort(), ['field', 'message']);
      assert.equal(typeof d.field, 'string');
      assert.equal(typeof d.message, 'string');
    }
  }
  assert.doesNotMatch(res.text, /<html|<!doctype|<body/i);
  assert.doesNotMatch(res.text, /stack|\n\s+at |node_modules|\.ts:\d+/i);
  return e;
}
