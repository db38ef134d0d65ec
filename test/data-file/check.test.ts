/**
 * checkDataFile: every kind of mistake a hand-written fixture can hold is refused with one line naming the file,
 * the place and what is wrong; a good file has no problem.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { checkDataFile } from '../../src/data-file/check.ts';
import { tempDir, tenTasks, writeFile } from './helpers.ts';

test('the hand-written fixture of ten tasks has no problem', async (t) => {
  assert.deepEqual(await checkDataFile(writeFile(tempDir(t), tenTasks())), []);
});

/** Each mistake: how it is made in the good fixture, and the one line it must give. */
const MISTAKES: { name: string; change: (file: Record<string, any>) => void; line: string }[] = [
  {
    name: 'a dangling reference (a task to a project that is not there)',
    change: (f) => (f.tasks[3].projectId = 'proj_x'),
    line: 'fixtures.json: tasks[3].projectId: no project "proj_x"',
  },
  {
    name: "a comment's target that is not there",
    change: (f) => (f.comments[0].targetId = 'task_gone'),
    line: 'fixtures.json: comments[0].targetId: no task "task_gone"',
  },
  {
    name: "a time entry's task that is not there",
    change: (f) => (f.timeEntries[0].taskId = 'task_gone'),
    line: 'fixtures.json: timeEntries[0].taskId: no task "task_gone"',
  },
  {
    name: "a project's team that is not there",
    change: (f) => (f.projects[0].teamId = 'team_gone'),
    line: 'fixtures.json: projects[0].teamId: no team "team_gone"',
  },
  {
    name: "a milestone's project that is not there",
    change: (f) => (f.milestones[0].projectId = 'proj_gone'),
    line: 'fixtures.json: milestones[0].projectId: no project "proj_gone"',
  },
  {
    name: 'a duplicate id',
    change: (f) => (f.tasks[5].id = 'task_f02'),
    line: 'fixtures.json: tasks[5].id: "task_f02" is already the id of tasks[1]',
  },
  {
    name: 'a bad enum',
    change: (f) => (f.tasks[2].status = 'doing'),
    line: 'fixtures.json: tasks[2].status: must be one of: todo, in_progress, done',
  },
  {
    name: 'a wrong type',
    change: (f) => (f.timeEntries[0].hours = '2.5'),
    line: 'fixtures.json: timeEntries[0].hours: must be a number',
  },
  {
    name: 'a missing required field',
    change: (f) => delete f.tasks[0].title,
    line: 'fixtures.json: tasks[0].title: is required',
  },
  {
    name: 'a bad date-time',
    change: (f) => (f.projects[1].createdAt = 'yesterday'),
    line: 'fixtures.json: projects[1].createdAt: must be an ISO 8601 date-time, e.g. 2026-11-22T10:00:00Z',
  },
  {
    name: 'a bad calendar date',
    change: (f) => (f.milestones[0].dueDate = '2026-02-30'),
    line: 'fixtures.json: milestones[0].dueDate: must be a calendar date (YYYY-MM-DD)',
  },
  {
    name: 'an unknown collection',
    change: (f) => (f.widgets = []),
    line:
      'fixtures.json: widgets: is not a collection; the collections are teams, projects, milestones, tasks, ' +
      'comments, timeEntries, webhooks, notifications, activityLog, tokens',
  },
  {
    name: 'a wrong id prefix',
    change: (f) => (f.tasks[4].id = 'proj_f05'),
    line: 'fixtures.json: tasks[4].id: "proj_f05" must start with "task_"',
  },
  {
    name: 'an id a URL path does not carry as it is',
    change: (f) => (f.comments[0].id = 'cmt_first/one'),
    line: 'fixtures.json: comments[0].id: "cmt_first/one" must go on after "cmt_" with letters, digits, "_" or "-" only',
  },
  {
    name: 'a field the record does not have (misspelt)',
    change: (f) => (f.tasks[1].asignee = 'ana'),
    line: 'fixtures.json: tasks[1].asignee: is not a field of a task',
  },
  {
    name: 'a record that is not an object',
    change: (f) => (f.tasks[9] = 'task_f10'),
    line: 'fixtures.json: tasks[9]: must be a JSON object',
  },
  {
    name: 'a collection that is not an array',
    change: (f) => (f.teams = f.teams[0]),
    line: 'fixtures.json: teams: must be an array of records',
  },
  {
    name: 'a member named twice in a team',
    change: (f) => f.teams[0].members.push({ username: 'ana', role: 'designer' }),
    line: 'fixtures.json: teams[0].members[2].username: "ana" is already a member',
  },
  {
    name: 'a webhook URL that is no callback address',
    change: (f) => (f.webhooks[0].url = 'https://user:pw@hooks.example.com/'),
    line: 'fixtures.json: webhooks[0].url: must not hold credentials (user:password@): the signature authenticates',
  },
  {
    name: 'a wrong format',
    change: (f) => (f.format = 'pm-service/2'),
    line: 'fixtures.json: format: must be "pm-service/1"',
  },
  {
    name: 'no format',
    change: (f) => delete f.format,
    line: 'fixtures.json: format: is required: "format": "pm-service/1"',
  },
  {
    name: 'a webhook secret in a file not written with secrets',
    change: (f) => (f.webhooks[0].secret = 'whsec_AbCdEf123456'),
    line: 'fixtures.json: webhooks[0].secret: only in a file written with secrets ("secrets": true); leave it out for a fresh one',
  },
  {
    name: 'tokens in a file not written with secrets',
    change: (f) =>
      (f.tokens = [
        {
          id: 'tok_f01',
          username: 'ana',
          scopes: ['read'],
          description: '',
          expiresAt: null,
          createdAt: '2026-03-01T09:00:00.000Z',
          lastUsedAt: null,
          hash: 'a'.repeat(64),
        },
      ]),
    line: 'fixtures.json: tokens: only in a file written with secrets ("secrets": true)',
  },
];

for (const mistake of MISTAKES) {
  test(`refused: ${mistake.name}`, async (t) => {
    const file = tenTasks();
    mistake.change(file);
    assert.deepEqual(await checkDataFile(writeFile(tempDir(t), file)), [mistake.line]);
  });
}

test('refused: not JSON at all, cut short, empty, only blanks, not an object', async (t) => {
  const dir = tempDir(t);
  const cases: [string, string][] = [
    ['name,title\n1,Fix it\n', 'fixtures.json: line 1, column 1: not JSON: expected a value'],
    [
      '{ "format": "pm-service/1",\n  "tasks": [ { "id": "task_1" ',
      "fixtures.json: line 2, column 31: not JSON: the file ends too soon (expected ',')",
    ],
    ['', 'fixtures.json: is empty'],
    ['  \n\n ', 'fixtures.json: is empty'],
    ['[]', 'fixtures.json: must be a JSON object: { "format": "pm-service/1", "tasks": […], … }'],
  ];
  for (const [text, line] of cases) {
    assert.deepEqual(await checkDataFile(writeFile(dir, text)), [line], JSON.stringify(text));
  }
});

test('refused: a file that is not there, or a folder', async (t) => {
  const dir = tempDir(t);
  assert.deepEqual(await checkDataFile(`${dir}/fixtures.json`), ['fixtures.json: cannot be read: no such file']);
  assert.deepEqual(await checkDataFile(dir, { name: 'fixtures' }), ['fixtures: cannot be read: it is not a file']);
});

test('every problem of a file is told, each once, schema problems before references', async (t) => {
  const file = tenTasks();
  file.tasks[0].projectId = 'proj_x';
  file.tasks[1].priority = 'urgent';
  delete file.projects[0].name;
  assert.deepEqual(await checkDataFile(writeFile(tempDir(t), file)), [
    'fixtures.json: tasks[1].priority: must be one of: low, medium, high',
    'fixtures.json: projects[0].name: is required',
    'fixtures.json: tasks[0].projectId: no project "proj_x"',
  ]);
});

test('at most 20 lines: past 19 problems, the last line counts the rest', async (t) => {
  const file = tenTasks();
  for (const task of file.tasks) {
    task.status = 'doing';
    task.priority = 'urgent';
    task.projectId = 'proj_x';
  }
  const lines = await checkDataFile(writeFile(tempDir(t), file));
  assert.equal(lines.length, 20);
  assert.equal(lines[0], 'fixtures.json: tasks[0].status: must be one of: todo, in_progress, done');
  assert.equal(lines[19], 'fixtures.json: and 11 more problems');
});

test('a file written with secrets may give webhooks their secret and hold tokens', async (t) => {
  const file: Record<string, any> = { ...tenTasks(), secrets: true };
  file.webhooks[0].secret = 'whsec_AbCdEf123456';
  file.tokens = [
    {
      id: 'tok_f01',
      username: 'ana',
      scopes: ['write'],
      description: 'CI',
      expiresAt: null,
      createdAt: '2026-03-01T09:00:00.000Z',
      lastUsedAt: null,
      hash: 'b'.repeat(64),
    },
  ];
  assert.deepEqual(await checkDataFile(writeFile(tempDir(t), file)), []);
});

test('the collections may come in any order, and every one may be left out', async (t) => {
  const dir = tempDir(t);
  assert.deepEqual(await checkDataFile(writeFile(dir, { format: 'pm-service/1' })), []);
  const { tasks, projects, teams } = tenTasks();
  const reversed = { tasks, projects, teams, format: 'pm-service/1', exportedAt: '2026-03-10T00:00:00.000Z' };
  assert.deepEqual(await checkDataFile(writeFile(dir, reversed)), []);
});
