import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kindNames, pluralOf } from '../../src/core/names.ts';

test('every spelling of a kind is derived from its name in words', () => {
  assert.deepEqual(kindNames('time entry'), {
    type: 'time_entry',
    noun: 'time entry',
    nouns: 'time entries',
    label: 'Time entry',
    tag: 'Time entries',
    path: '/api/time-entries',
    storeKey: 'timeEntries',
    component: 'TimeEntry',
    components: 'TimeEntries',
  });
  const task = kindNames('task');
  assert.equal(task.path, '/api/tasks');
  assert.equal(task.storeKey, 'tasks');
  assert.equal(task.component, 'Task');
});

test('plurals: a consonant and y becomes ies, anything else takes s', () => {
  assert.equal(pluralOf('entry'), 'entries');
  assert.equal(pluralOf('day'), 'days');
  assert.equal(pluralOf('milestone'), 'milestones');
});
