/**
 * The data file's JSON Schema: served at GET /api/export.schema.json (public, also with AUTH=token), the same as
 * the committed docs/export.schema.json (`npm run docs:schema` writes it), and it describes real files: the
 * samples and the fixture pass it, a record with an unknown field or a bad enum does not.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { SCHEMA_FILE } from '../../scripts/docs-schema.ts';
import { SAMPLES_FILE } from '../../src/store/seed-data.ts';
import { testApp } from '../helpers/app.ts';
import { authApp } from '../helpers/auth.ts';
import { tenTasks } from './helpers.ts';

type AddFormats = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as { default?: AddFormats }).default ?? addFormatsModule) as AddFormats;

const committed = () => JSON.parse(readFileSync(SCHEMA_FILE, 'utf8')) as Record<string, unknown>;

test('GET /api/export.schema.json serves the committed docs/export.schema.json (else: npm run docs:schema)', async (t) => {
  const { api } = await testApp(t);
  const res = await api.get('/api/export.schema.json');
  assert.equal(res.status, 200);
  assert.equal(res.headers['content-type'], 'application/json; charset=utf-8');
  assert.deepEqual(res.body, committed());
});

test('the schema is public: no token needed with AUTH=token', async (t) => {
  const { app } = await authApp(t);
  const res = await app.inject('/api/export.schema.json');
  assert.equal(res.statusCode, 200);
  assert.deepEqual(res.json(), committed());
});

test('the schema accepts the samples and the fixture, and refuses a misspelt field and a bad enum', () => {
  const validate = addFormats(new Ajv2020({ allErrors: true, strict: false })).compile(committed());
  assert.equal(validate(JSON.parse(readFileSync(SAMPLES_FILE, 'utf8'))), true, JSON.stringify(validate.errors));
  assert.equal(validate(tenTasks()), true, JSON.stringify(validate.errors));
  const misspelt = tenTasks();
  misspelt.tasks[0].asignee = 'ana';
  assert.equal(validate(misspelt), false);
  const badEnum = tenTasks();
  badEnum.projects[0].status = 'paused';
  assert.equal(validate(badEnum), false);
  assert.equal(validate({ format: 'pm-service/1', widgets: [] }), false);
  assert.equal(validate({ tasks: [] }), false);
});
