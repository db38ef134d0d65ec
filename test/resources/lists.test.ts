import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ListSpec } from '../../src/model/list.ts';
import { ActivityListSpec } from '../../src/resources/activity-log/schema.ts';
import { CommentList } from '../../src/model/comment.ts';
import { MilestoneList } from '../../src/model/milestone.ts';
import { NotificationList } from '../../src/model/notification.ts';
import { ProjectList } from '../../src/model/project.ts';
import { TaskList } from '../../src/model/task.ts';
import { TeamList } from '../../src/model/team.ts';
import { TimeEntryList } from '../../src/model/time-entry.ts';
import { WebhookList } from '../../src/model/webhook.ts';
import { errorOf, fieldsOf, testApp, type Api, type Res } from '../helpers/app.ts';

type Row = Record<string, any>;
const ids = (rows: Row[]) => rows.map((r) => r.id as string);

const COLLECTIONS: [string, ListSpec][] = [
  ['/api/projects', ProjectList],
  ['/api/tasks', TaskList],
  ['/api/teams', TeamList],
  ['/api/comments', CommentList],
  ['/api/milestones', MilestoneList],
  ['/api/time-entries', TimeEntryList],
  ['/api/webhooks', WebhookList],
  ['/api/notifications', NotificationList],
];

/** Follows `Link: <…>; rel="next"` from `url` to the last page: every record, and each page's answer. */
async function follow(api: Api, url: string): Promise<{ rows: Row[]; pages: Res[] }> {
  const rows: Row[] = [];
  const pages: Res[] = [];
  let next: string | undefined = url;
  while (next) {
    const res: Res = await api.get(next);
    assert.equal(res.status, 200, `${next}: ${res.text}`);
    pages.push(res);
    rows.push(...res.body.data);
    const link = res.headers.link as string | undefined;
    next = link ? /^<([^>]+)>; rel="next"$/.exec(link)![1] : undefined;
    assert.equal(next === undefined, res.body.nextCursor === null, `${url}: Link and nextCursor agree`);
    assert.ok(pages.length < 100);
  }
  return { rows, pages };
}

/** The order the service promises: progression for enumerations, code points for text, missing last, stable. */
function sorted(rows: Row[], keys: { field: string; descending: boolean; progression?: readonly string[] | null }[]) {
  const value = (r: Row, k: (typeof keys)[number]) => {
    const v = r[k.field];
    return v === null || v === undefined ? null : k.progression ? k.progression.indexOf(v) : v;
  };
  return [...rows].sort((a, b) => {
    for (const k of keys) {
      const x = value(a, k);
      const y = value(b, k);
      if (x === y) continue;
      if (x === null) return 1;
      if (y === null) return -1;
      const c = x < y ? -1 : 1;
      return k.descending ? -c : c;
    }
    return 0;
  });
}

/** Some notifications, as the service makes them: by assigning tasks. */
async function withNotifications(api: Api): Promise<void> {
  for (const [task, user] of [
    ['task_001', 'alice'],
    ['task_002', 'bob'],
    ['task_003', 'alice'],
  ]) {
    await api.patch(`/api/tasks/${task}`, { assignee: user });
  }
}

test('every collection: without the new parameters, the answer is as before, with X-Total-Count', async (t) => {
  const { api } = await testApp(t);
  await withNotifications(api);
  for (const [path] of COLLECTIONS) {
    const res = await api.get(path);
    assert.equal(res.status, 200, path);
    assert.deepEqual(Object.keys(res.body).sort(), ['count', 'data'], path);
    assert.equal(res.headers['x-total-count'], String(res.body.count), path);
    assert.equal(res.headers.link, undefined, path);
  }
});

test('every collection: pages of every size, followed through Link, give the whole list once, totals on each', async (t) => {
  const { api } = await testApp(t);
  await withNotifications(api);
  for (const [path] of COLLECTIONS) {
    const all = (await api.get(path)).body.data as Row[];
    for (const limit of [1, 2, 3, 1000]) {
      const { rows, pages } = await follow(api, `${path}?limit=${limit}`);
      assert.deepEqual(ids(rows), ids(all), `${path} limit ${limit}`);
      assert.equal(pages.length, Math.max(1, Math.ceil(all.length / limit)), `${path} limit ${limit}`);
      for (const page of pages) {
        assert.equal(page.headers['x-total-count'], String(all.length), path);
        assert.ok(page.body.count <= limit);
        assert.ok('nextCursor' in page.body);
      }
    }
  }
});

test('every collection: each sortable field, both directions, and paged, in the promised order', async (t) => {
  const { api } = await testApp(t);
  await withNotifications(api);
  for (const [path, spec] of COLLECTIONS) {
    const all = (await api.get(path)).body.data as Row[];
    for (const [field, progression] of Object.entries(spec.sort)) {
      if (path === '/api/teams' && !(field in all[0]!)) continue;
      for (const descending of [false, true]) {
        const sort = `${descending ? '-' : ''}${field}`;
        const expected = ids(sorted(all, [{ field, descending, progression }]));
        const res = await api.get(`${path}?sort=${sort}`);
        assert.equal(res.status, 200, `${path}?sort=${sort}`);
        assert.deepEqual(ids(res.body.data), expected, `${path}?sort=${sort}`);
        assert.deepEqual(ids((await follow(api, `${path}?sort=${sort}&limit=2`)).rows), expected, `${sort} paged`);
      }
    }
  }
});

test('tasks: -priority, status with ties in creation order; several keys; pages while tasks are added and removed', async (t) => {
  const { api } = await testApp(t);
  const all = (await api.get('/api/tasks')).body.data as Row[];
  const res = await api.get('/api/tasks?sort=-priority,status');
  const expected = sorted(all, [
    { field: 'priority', descending: true, progression: ['low', 'medium', 'high'] },
    { field: 'status', descending: false, progression: ['todo', 'in_progress', 'done'] },
  ]);
  assert.deepEqual(ids(res.body.data), ids(expected));
  assert.deepEqual(
    res.body.data.map((r: Row) => r.priority),
    [...all.map((r) => r.priority)].sort(
      (a, b) => ['high', 'medium', 'low'].indexOf(a) - ['high', 'medium', 'low'].indexOf(b),
    ),
  );

  const first = await api.get('/api/tasks?limit=4');
  assert.deepEqual(ids(first.body.data), ids(all.slice(0, 4)));
  await api.delete(`/api/tasks/${all[1]!.id}`); // seen
  await api.delete(`/api/tasks/${all[6]!.id}`); // not yet seen
  const added = await api.post('/api/tasks', { projectId: 'proj_001', title: 'Added while paging' });
  const rest = await follow(api, `/api/tasks?limit=4&cursor=${encodeURIComponent(first.body.nextCursor)}`);
  assert.deepEqual(ids(rest.rows), [...ids(all.slice(4)).filter((id) => id !== all[6]!.id), added.body.data.id]);
  assert.equal(rest.pages[0]!.headers['x-total-count'], String(all.length - 1));
});

test('ranges and any-of: updatedAt[gte] for syncing, dueDate, date and hours; status[in], projectId[in]; combined with q and sort', async (t) => {
  const { api, clock } = await testApp(t);
  const all = (await api.get('/api/tasks')).body.data as Row[];
  const since = all[4]!.updatedAt as string;
  const changed = await api.get(`/api/tasks?updatedAt[gte]=${since}`);
  assert.deepEqual(ids(changed.body.data), ids(all.filter((r) => r.updatedAt >= since)));
  const gt = await api.get(`/api/tasks?updatedAt[gt]=${since}&createdAt[lt]=2030-01-01`);
  assert.deepEqual(ids(gt.body.data), ids(all.filter((r) => r.updatedAt > since)));
  // A change after a sync shows up in the next sync.
  clock.advance(60_000);
  const patched = await api.patch('/api/tasks/task_002', { title: 'Changed since' });
  const later = await api.get(`/api/tasks?updatedAt[gte]=${patched.body.data.updatedAt}`);
  assert.deepEqual(ids(later.body.data), ['task_002']);

  const statuses = await api.get('/api/tasks?status[in]=todo,in_progress');
  assert.deepEqual(ids(statuses.body.data), ids(all.filter((r) => r.status !== 'done')));
  assert.equal(statuses.headers['x-total-count'], String(statuses.body.count));
  const projects = await api.get('/api/tasks?projectId[in]=proj_001,proj_003&status=todo');
  assert.deepEqual(
    ids(projects.body.data),
    ids(all.filter((r) => ['proj_001', 'proj_003'].includes(r.projectId) && r.status === 'todo')),
  );

  const milestones = (await api.get('/api/milestones')).body.data as Row[];
  const due = await api.get('/api/milestones?dueDate[gte]=2026-10-01&dueDate[lte]=2026-12-31&sort=-dueDate');
  assert.deepEqual(
    ids(due.body.data),
    ids(
      sorted(
        milestones.filter((m) => m.dueDate && m.dueDate >= '2026-10-01' && m.dueDate <= '2026-12-31'),
        [{ field: 'dueDate', descending: true }],
      ),
    ),
  );
  const entries = (await api.get('/api/time-entries')).body.data as Row[];
  const hours = await api.get('/api/time-entries?hours[gt]=2&date[lt]=2026-12-01');
  assert.deepEqual(ids(hours.body.data), ids(entries.filter((e) => e.hours > 2 && e.date < '2026-12-01')));
  const webhooks = await api.get('/api/webhooks?active[in]=true,false');
  assert.equal(webhooks.body.count, (await api.get('/api/webhooks')).body.count);

  const word = (all[0]!.title as string).split(' ')[1]!;
  const searched = await api.get(
    `/api/tasks?q=${encodeURIComponent(word.toUpperCase())}&status[in]=done,todo&sort=-priority&limit=1`,
  );
  const matching = sorted(
    all.filter(
      (r) =>
        ['done', 'todo'].includes(r.status) &&
        `${r.title}\n${r.description}`.toLowerCase().includes(word.toLowerCase()),
    ),
    [{ field: 'priority', descending: true, progression: ['low', 'medium', 'high'] }],
  );
  assert.deepEqual(ids(searched.body.data), ids(matching.slice(0, 1)));
  assert.equal(searched.headers['x-total-count'], String(matching.length));
});

test('a page and its total come from one moment: while records are added, a page not cut by limit counts its total', async (t) => {
  const { api } = await testApp(t);
  let stop = false;
  const writers = Array.from({ length: 8 }, async () => {
    while (!stop) {
      const res = await api.post(
        '/api/comments',
        { targetType: 'project', targetId: 'proj_001', author: 'tag', body: 'c' },
        { 'x-actor': 'tag' },
      );
      assert.equal(res.status, 201, res.text);
    }
  });
  const seen: string[] = [];
  try {
    while ((await api.get('/api/comments?author=tag')).body.count === 0) await new Promise((r) => setTimeout(r, 5));
    for (let i = 0; i < 40; i++) {
      const comments = await api.get('/api/comments?author=tag&limit=1000');
      const activity = await api.get('/api/activity-log?actor=tag&limit=1000');
      seen.push(
        `${comments.body.count}/${comments.headers['x-total-count']}`,
        `${activity.body.count}/${activity.body.total}`,
      );
    }
  } finally {
    stop = true;
    await Promise.all(writers);
  }
  const mismatched = seen.filter((pair) => pair.split('/')[0] !== pair.split('/')[1]);
  assert.deepEqual(mismatched, [], `pages and totals (count/total): ${seen.join(' ')}`);
});

test('q: every word in one of the text fields, ignoring case, on every collection', async (t) => {
  const { api } = await testApp(t);
  await withNotifications(api);
  for (const [path, spec] of COLLECTIONS) {
    const all = (await api.get(path)).body.data as Row[];
    const text = (r: Row) =>
      spec.search
        .map((f) => String(r[f] ?? ''))
        .join('\n')
        .toLowerCase();
    const sample = all.map(text).find((s) => /[a-z]{3}/.test(s));
    if (!sample) continue;
    const word = /[a-z]{3,}/.exec(sample)![0];
    const res = await api.get(`${path}?q=${encodeURIComponent(` ${word.toUpperCase()}  `)}`);
    assert.equal(res.status, 200, path);
    const expected = ids(
      all.filter((r) =>
        spec.search.some((f) =>
          String(r[f] ?? '')
            .toLowerCase()
            .includes(word),
        ),
      ),
    );
    assert.deepEqual(ids(res.body.data), expected, `${path}?q=${word}`);
    const none = await api.get(`${path}?q=${word}+zzzqqq`);
    assert.deepEqual([none.body.count, none.headers['x-total-count']], [0, '0'], path);
  }
});

test("q: letters beyond ASCII fold as PostgreSQL's lower() folds them, on every store alike", async (t) => {
  const { api } = await testApp(t);
  const names = ['İstanbul ΣΟΦΟΣ', 'Straße', 'Kelvin \u212a', 'ǅemal', 'ÿes Éclair', '𐐀 Deseret'];
  const made: Record<string, string> = {};
  for (const name of names) made[name] = (await api.post('/api/projects', { name })).body.data.id;
  // Each term, and the names it finds: one character at a time to its simple lower case; no final sigma, no ß → ss.
  const cases: [string, string[]][] = [
    ['istanbul', ['İstanbul ΣΟΦΟΣ']],
    ['İSTANBUL', ['İstanbul ΣΟΦΟΣ']],
    ['σοφοσ', ['İstanbul ΣΟΦΟΣ']],
    ['ΣΟΦΟΣ', ['İstanbul ΣΟΦΟΣ']],
    ['σοφος', []],
    ['STRASSE', []],
    ['STRAßE', ['Straße']],
    ['kelvin k', ['Kelvin \u212a']],
    ['ǆEMAL', ['ǅemal']],
    ['ŸES éCLAIR', ['ÿes Éclair']],
    ['𐐨', ['𐐀 Deseret']],
  ];
  for (const [q, expected] of cases) {
    const res = await api.get(`/api/projects?q=${encodeURIComponent(q)}`);
    assert.equal(res.status, 200, q);
    assert.deepEqual(
      ids(res.body.data),
      expected.map((name) => made[name]),
      q,
    );
  }
});

test('bad list parameters: 400 VALIDATION_ERROR naming the parameter', async (t) => {
  const { api } = await testApp(t);
  const other = (await api.get('/api/tasks?limit=1&status=todo')).body.nextCursor as string;
  const mine = (await api.get('/api/tasks?limit=1')).body.nextCursor as string;
  const tampered = `${mine.slice(0, 5)}${mine[5] === 'A' ? 'B' : 'A'}${mine.slice(6)}`;
  const cases: [string, string][] = [
    ['/api/tasks?limit=0', 'limit'],
    ['/api/tasks?limit=1001', 'limit'],
    ['/api/tasks?limit=two', 'limit'],
    ['/api/tasks?cursor=nonsense', 'cursor'],
    [`/api/tasks?limit=1&cursor=${encodeURIComponent(tampered)}`, 'cursor'],
    [`/api/tasks?limit=1&cursor=${encodeURIComponent(other)}`, 'cursor'],
    [`/api/tasks?limit=1&sort=title&cursor=${encodeURIComponent(mine)}`, 'cursor'],
    [`/api/projects?limit=1&cursor=${encodeURIComponent(mine)}`, 'cursor'],
    ['/api/tasks?sort=nope', 'sort'],
    ['/api/tasks?sort=-', 'sort'],
    ['/api/tasks?sort=title,', 'sort'],
    ['/api/tasks?sort=title,-title', 'sort'],
    ['/api/tasks?sort=description', 'sort'],
    ['/api/tasks?createdAt[foo]=1', 'createdAt[foo]'],
    ['/api/tasks?priority[in]=high', 'priority[in]'],
    ['/api/tasks?status[in]=todo,nope', 'status[in]'],
    ['/api/tasks?status[in]=todo,', 'status[in]'],
    ['/api/tasks?createdAt[gte]=yesterday', 'createdAt[gte]'],
    ['/api/milestones?dueDate[lt]=2026-13-01', 'dueDate[lt]'],
    ['/api/time-entries?hours[gt]=many', 'hours[gt]'],
    ['/api/time-entries?date[in]=2026-02-30', 'date[in]'],
    ['/api/webhooks?active[in]=yes', 'active[in]'],
    ['/api/tasks?q=', 'q'],
    ['/api/tasks?q=%20%20', 'q'],
    [`/api/tasks?q=${'x'.repeat(201)}`, 'q'],
    ['/api/activity-log?sort=summary', 'sort'],
    ['/api/activity-log?timestamp[gte]=soon', 'timestamp[gte]'],
    ['/api/activity-log?cursor=x', 'cursor'],
  ];
  for (const [url, field] of cases) {
    const res = await api.get(url);
    assert.equal(res.status, 400, url);
    assert.equal(errorOf(res).code, 'VALIDATION_ERROR', url);
    assert.deepEqual(fieldsOf(res), [field], url);
  }
  assert.equal((await api.get(`/api/tasks?limit=1&cursor=${encodeURIComponent(mine)}`)).status, 200);
  assert.equal((await api.get(`/api/tasks?cursor=${encodeURIComponent(mine)}&limit=5`)).status, 200);
});

test('activity log: pages newest first through cursors, limit 0 only the total, sort, ranges, in and q', async (t) => {
  const { api } = await testApp(t);
  const all = (await api.get('/api/activity-log')).body.data as Row[];
  assert.equal(all.length, 10);
  const { rows, pages } = await follow(api, '/api/activity-log?limit=3');
  assert.deepEqual(ids(rows), ids(all));
  assert.equal(pages.length, 4);
  for (const page of pages) {
    assert.equal(page.body.total, 10);
    assert.equal(page.headers['x-total-count'], '10');
  }
  const zero = await api.get('/api/activity-log?limit=0');
  assert.deepEqual([zero.body.count, zero.body.total, zero.headers['x-total-count']], [0, 10, '10']);
  const plain = await api.get('/api/activity-log');
  assert.deepEqual(Object.keys(plain.body).sort(), ['count', 'data', 'total']);

  for (const [field] of Object.entries(ActivityListSpec.sort)) {
    for (const descending of [false, true]) {
      const sort = `${descending ? '-' : ''}${field}`;
      const got = await follow(api, `/api/activity-log?sort=${sort}&limit=4`);
      const expected = sorted(all, [{ field, descending }]);
      assert.deepEqual(ids(got.rows), ids(expected), sort);
    }
  }
  const middle = all[5]!.timestamp as string;
  const window = await api.get(`/api/activity-log?timestamp[lt]=${middle}`);
  assert.deepEqual(ids(window.body.data), ids(all.filter((e) => e.timestamp < middle)));
  const actors = [...new Set(all.map((e) => e.actor as string))].slice(0, 2);
  const byActors = await api.get(`/api/activity-log?actor[in]=${actors.join(',')}&limit=2`);
  const expected = all.filter((e) => actors.includes(e.actor));
  assert.deepEqual(ids(byActors.body.data), ids(expected.slice(0, 2)));
  assert.equal(byActors.body.total, expected.length);
  const q = await api.get('/api/activity-log?q=CREATED');
  assert.deepEqual(
    ids(q.body.data),
    ids(all.filter((e) => `${e.action} ${e.summary}`.toLowerCase().includes('created'))),
  );
});

test('CORS exposes X-Total-Count and Link', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/tasks?limit=1', { origin: 'https://board.example.com' });
  const exposed = String(res.headers['access-control-expose-headers']).toLowerCase().split(/,\s*/);
  assert.ok(exposed.includes('x-total-count') && exposed.includes('link'), exposed.join());
  assert.match(String(res.headers.link), /^<\/api\/tasks\?limit=1&cursor=[^>]+>; rel="next"$/);
});
