import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Webhook } from 'standardwebhooks';
import { sign, signingKey } from '../../src/webhooks/signing.ts';
import { SECRET } from './helpers.ts';

test('an issued secret (whsec_ + 12 alphanumerics) is base64 for a 9-byte key', () => {
  assert.equal(signingKey(SECRET).length, 9);
  assert.deepEqual(signingKey(SECRET), Buffer.from('AbCdEf123456', 'base64'));
  assert.throws(() => signingKey('whsec_not-base64!'), /not base64/);
  assert.throws(() => signingKey('whsec_'), /not base64|empty/);
  assert.throws(() => signingKey('whsec_AbCdEf12345'), /not base64/, 'not whole 4-character groups');
});

test('sign matches the Standard Webhooks reference vector', () => {
  // The test vector of the Standard Webhooks libraries.
  const signature = sign(
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'msg_p5jXN8AQM9LWM0D4loKWxJek',
    1614265330,
    '{"test": 2432232314}',
  );
  assert.equal(signature, 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
});

test('the published standardwebhooks verifier accepts our signature with the secret exactly as issued', () => {
  const body = JSON.stringify({ type: 'task.created', timestamp: '2026-11-22T10:00:00.000Z', data: { id: 'task_1' } });
  const seconds = Math.floor(Date.now() / 1000);
  const headers = {
    'webhook-id': 'evt_001',
    'webhook-timestamp': String(seconds),
    'webhook-signature': sign(SECRET, 'evt_001', seconds, body),
  };
  const wh = new Webhook(SECRET);
  assert.deepEqual(wh.verify(body, headers), JSON.parse(body));
  assert.equal(wh.sign('evt_001', new Date(seconds * 1000), body), headers['webhook-signature']);
  // …and rejects anything altered.
  assert.throws(() => wh.verify(body.replace('task_1', 'task_2'), headers), /No matching signature/);
  assert.throws(() => wh.verify(body, { ...headers, 'webhook-id': 'evt_002' }), /No matching signature/);
  assert.throws(() => new Webhook('whsec_AbCdEf123457').verify(body, headers), /No matching signature/);
});
