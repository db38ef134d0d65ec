import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, fieldsOf, testApp } from '../helpers/app.ts';

// PostgreSQL keeps no NUL character in text or jsonb: every store refuses it in a request alike (scripts/test.ts
// runs this file on each), as a VALIDATION_ERROR naming the field, and stores nothing.

const entry = { action: 'task.updated', actor: 'bob', resourceType: 'task', resourceId: 'task_005' };

test('NUL in a body string, a metadata value or a metadata key is a 400 naming it; nothing is stored', async (t) => {
  const { api } = await testApp(t);
  const tasks = (await api.get('/api/tasks')).body.count;
  assert.equal(tasks, 10);
  const task = await api.post('/api/tasks', { projectId: 'proj_002', title: 'a\u0000b', description: 'ok' });
  assert.equal(task.status, 400);
  assert.equal(errorOf(task).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(task), ['title']);
  assert.match(errorOf(task).details![0]!.message, /NUL/);
  assert.equal((await api.get('/api/tasks')).body.count, tasks);

  const entries = (await api.get('/api/activity-log')).body.total;
  assert.equal(entries, 10);
  const value = await api.post('/api/activity-log', { ...entry, metadata: { note: { deep: ['x\u0000'] } } });
  assert.equal(value.status, 400);
  assert.deepEqual(fieldsOf(value), ['metadata.note.deep[0]']);
  const key = await api.post('/api/activity-log', { ...entry, metadata: { 'k\u0000': 1 } });
  assert.equal(key.status, 400);
  assert.equal(errorOf(key).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(key), ['metadata.k\u0000']);
  assert.equal((await api.get('/api/activity-log')).body.total, entries);
});

test('a NUL character in a change or a list filter is a 400, and the record keeps its value', async (t) => {
  const { api } = await testApp(t);
  const before = (await api.get('/api/tasks/task_001')).body.data;
  const patch = await api.patch('/api/tasks/task_001', { title: '\u0000' });
  assert.equal(patch.status, 400);
  assert.deepEqual(fieldsOf(patch), ['title']);
  assert.deepEqual((await api.get('/api/tasks/task_001')).body.data, before);

  const list = await api.get('/api/tasks?assignee=a%00b');
  assert.equal(list.status, 400);
  assert.equal(errorOf(list).code, 'VALIDATION_ERROR');
  assert.deepEqual(fieldsOf(list), ['assignee']);
  const log = await api.get('/api/activity-log?actor=%00');
  assert.equal(log.status, 400);
  assert.deepEqual(fieldsOf(log), ['actor']);
});
