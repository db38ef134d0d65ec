import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, testApp } from '../helpers/app.ts';

/** The interface document's list ("exactly these"), in its order, and the wildcard. */
const DOCUMENT = [
  'project.created',
  'project.updated',
  'project.deleted',
  'task.created',
  'task.updated',
  'task.deleted',
  'comment.created',
  'comment.updated',
  'comment.deleted',
  'milestone.reached',
  'sprint.started',
  'sprint.completed',
  '*',
];

test("GET /api/event-types lists the document's twelve event types and `*`, each with a one-line description", async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/event-types');
  assert.equal(res.status, 200);
  assert.equal(res.body.count, 13);
  assert.deepEqual(
    res.body.data.map((e: any) => e.type),
    DOCUMENT,
  );
  for (const e of res.body.data) {
    assert.deepEqual(Object.keys(e), ['type', 'description'], e.type);
    assert.match(e.description, /^[A-Z][^\n]{5,120}$/, e.type);
  }
  assert.equal(res.body.data.at(-1).description, 'Wildcard: all event types');
});

test('a webhook may subscribe to exactly the types listed: all of them pass, anything else is INVALID_EVENTS', async (t) => {
  const { api } = await testApp(t);
  const listed = (await api.get('/api/event-types')).body.data.map((e: any) => e.type);
  const created = await api.post('/api/webhooks', { url: 'https://hooks.example.com/all', events: listed });
  assert.equal(created.status, 201);
  assert.deepEqual(created.body.data.events, listed);
  for (const other of ['task.assigned', 'webhook.created', 'milestone.updated', 'TASK.CREATED']) {
    const res = await api.post('/api/webhooks', { url: 'https://hooks.example.com/x', events: [other] });
    assert.equal(res.status, 400, other);
    assert.equal(errorOf(res).code, 'INVALID_EVENTS', other);
  }
});
