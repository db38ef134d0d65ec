import { test } from 'node:test';
import assert from 'node:assert/strict';
import { errorOf, testApp } from '../helpers/app.ts';

test('a single-record GET carries an ETag; If-None-Match with it gives 304 and no body', async (t) => {
  const { api } = await testApp(t);
  for (const path of [
    '/api/tasks/task_001',
    '/api/projects/proj_001',
    '/api/teams/team_001',
    '/api/activity-log/act_001',
    '/api/webhooks/wh_001',
  ]) {
    const first = await api.get(path);
    const etag = first.headers.etag as string;
    assert.match(etag, /^"[0-9A-Za-z:.-]+"$/, path); // opaque: quoted, no spaces or quotes inside
    const again = await api.get(path, { 'if-none-match': etag });
    assert.equal(again.status, 304, path);
    assert.equal(again.text, '');
    assert.equal((await api.get(path, { 'if-none-match': `W/${etag}` })).status, 304);
    assert.equal((await api.get(path, { 'if-none-match': '"other", ' + etag })).status, 304);
    assert.equal((await api.get(path, { 'if-none-match': '"other"' })).status, 200);
    // HEAD answers as GET does (RFC 9110 §13.1.2): 304 when the tag matches, with the same ETag.
    const head = await api.request({ method: 'HEAD', url: path, headers: { 'if-none-match': etag } });
    assert.equal(head.status, 304, `HEAD ${path}`);
    assert.equal(head.headers.etag, etag);
    const changed = await api.request({ method: 'HEAD', url: path, headers: { 'if-none-match': '"other"' } });
    assert.equal(changed.status, 200, `HEAD ${path}`);
    assert.equal(changed.headers.etag, etag);
  }
});

test('the ETag changes when the record changes, and the update answer carries the new one', async (t) => {
  const { api } = await testApp(t);
  const before = (await api.get('/api/tasks/task_001')).headers.etag;
  const patched = await api.patch('/api/tasks/task_001', { priority: 'low' });
  assert.notEqual(patched.headers.etag, before);
  assert.equal((await api.get('/api/tasks/task_001')).headers.etag, patched.headers.etag);
  assert.equal((await api.get('/api/tasks/task_001', { 'if-none-match': before as string })).status, 200);
});

test('If-Match: the current ETag lets PATCH, PUT and DELETE through; a stale one is 412 and changes nothing', async (t) => {
  const { api } = await testApp(t);
  const etag = (await api.get('/api/tasks/task_002')).headers.etag as string;
  await api.patch('/api/tasks/task_002', { status: 'done' }); // someone else's write
  const stale = await api.patch('/api/tasks/task_002', { title: 'Mine' }, { 'if-match': etag });
  assert.equal(stale.status, 412);
  assert.equal(errorOf(stale).code, 'PRECONDITION_FAILED');
  assert.equal((await api.get('/api/tasks/task_002')).body.data.title, 'Build the responsive navigation');

  const current = (await api.get('/api/tasks/task_002')).headers.etag as string;
  const ok = await api.patch('/api/tasks/task_002', { title: 'Mine' }, { 'if-match': current });
  assert.equal(ok.status, 200);
  assert.equal(ok.body.data.title, 'Mine');

  const project = (await api.get('/api/projects/proj_005')).headers.etag as string;
  assert.equal((await api.put('/api/projects/proj_005', { name: 'x' }, { 'if-match': '"nope"' })).status, 412);
  assert.equal((await api.put('/api/projects/proj_005', { name: 'x' }, { 'if-match': project })).status, 200);

  assert.equal((await api.delete('/api/comments/cmt_001', { 'if-match': '"nope"' })).status, 412);
  assert.equal((await api.get('/api/comments/cmt_001')).status, 200);
  assert.equal((await api.delete('/api/comments/cmt_001', { 'if-match': '*' })).status, 200);
});

test('If-Match compares strongly (RFC 9110): the current ETag marked weak is 412 and changes nothing', async (t) => {
  const { api } = await testApp(t);
  const task = (await api.get('/api/tasks/task_002')).headers.etag as string;
  const weak = await api.patch('/api/tasks/task_002', { title: 'Mine' }, { 'if-match': `W/${task}` });
  assert.equal(weak.status, 412);
  assert.equal(errorOf(weak).code, 'PRECONDITION_FAILED');
  assert.equal((await api.get('/api/tasks/task_002')).headers.etag, task, 'unchanged');
  const among = await api.patch('/api/tasks/task_002', { title: 'Mine' }, { 'if-match': `"other", W/${task}` });
  assert.equal(among.status, 412, 'weak in a list too');

  const project = (await api.get('/api/projects/proj_005')).headers.etag as string;
  assert.equal((await api.put('/api/projects/proj_005', { name: 'x' }, { 'if-match': `W/${project}` })).status, 412);
  const comment = (await api.get('/api/comments/cmt_001')).headers.etag as string;
  assert.equal((await api.delete('/api/comments/cmt_001', { 'if-match': `W/${comment}` })).status, 412);
  assert.equal((await api.get('/api/comments/cmt_001')).status, 200, 'not deleted');
  // The same tags, strong, pass.
  assert.equal((await api.patch('/api/tasks/task_002', { title: 'Mine' }, { 'if-match': task })).status, 200);
  assert.equal((await api.delete('/api/comments/cmt_001', { 'if-match': comment })).status, 200);
});

test('notifications: the ETag follows the read flag; If-Match guards marking read', async (t) => {
  const { api } = await testApp(t);
  const created = await api.post('/api/notifications', { username: 'bob', type: 'project_updated', message: 'x' });
  const id = created.body.data.id;
  const unread = (await api.get(`/api/notifications/${id}`)).headers.etag as string;
  assert.equal(created.headers.etag, unread);
  assert.equal((await api.patch(`/api/notifications/${id}/read`, undefined, { 'if-match': '"stale"' })).status, 412);
  const read = await api.patch(`/api/notifications/${id}/read`, undefined, { 'if-match': unread });
  assert.equal(read.status, 200);
  assert.notEqual(read.headers.etag, unread);
});

test('without conditional headers, the last write wins', async (t) => {
  const { api } = await testApp(t);
  await api.patch('/api/tasks/task_003', { title: 'A' });
  await api.patch('/api/tasks/task_003', { title: 'B' });
  assert.equal((await api.get('/api/tasks/task_003')).body.data.title, 'B');
});

test('an activity entry keeps one ETag: POST answer, GET and If-None-Match agree, in any key order', async (t) => {
  const { api } = await testApp(t);
  // Keys out of alphabetical order, nested too: a store may give them back in another order.
  const metadata = { to: 'done', from: 'todo', nested: { zeta: 1, alpha: [{ y: 2, x: 1 }] } };
  const created = await api.post('/api/activity-log', {
    action: 'task.status_changed',
    actor: 'bob',
    resourceType: 'task',
    resourceId: 'task_005',
    metadata,
  });
  assert.equal(created.status, 201);
  const etag = created.headers.etag as string;
  assert.match(etag, /^"h[0-9a-z]+"$/);
  const read = await api.get(`/api/activity-log/${created.body.data.id}`);
  assert.deepEqual(read.body.data.metadata, metadata);
  assert.equal(read.headers.etag, etag);
  assert.equal((await api.get(`/api/activity-log/${created.body.data.id}`, { 'if-none-match': etag })).status, 304);
});
