/**
 * `npm run bench:data`: export and import of a large store with the real commands (`npm run import`, `npm run
 * export`), on PostgreSQL and on the embedded store. For each size, a data file is written here (teams, projects,
 * `--tasks` tasks and one `task.created` activity entry per task), then, on each store: the file imported into an
 * empty store, then the store exported again. Each command is timed (wall) and its peak memory read
 * (`/usr/bin/time`: the process's maximum RSS); the export is checked to hold every task and entry, and to be the
 * same file from both stores. Two sizes by default, so that the memory of the larger shows whether it grows with
 * the file.
 *
 *   npm run bench:data                                   (100,000 and 1,000,000 tasks; both stores)
 *   npm run bench:data -- --sizes 10000,50000            (a quick run)
 *   npm run bench:data -- --stores embedded              (no PostgreSQL server)
 *
 * The PostgreSQL server is `BENCH_PG_URL` (default postgres://postgres@127.0.0.1:5432); a database is made for each
 * import and dropped at the end. Files go to a temporary folder, removed at the end.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createReadStream, createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { admin, dbUrl } from './lib/pg.ts';

const { values: a } = parseArgs({
  options: {
    sizes: { type: 'string', default: '100000,1000000' },
    stores: { type: 'string', default: 'postgres,embedded' },
  },
});
const SIZES = a.sizes.split(',').map(Number);
const STORES = a.stores.split(',') as ('postgres' | 'embedded')[];
const TASKS_PER_PROJECT = 1_000;
const log = (line: string) => process.stdout.write(`${line}\n`);
const dir = mkdtempSync(join(tmpdir(), 'pm-bench-data-'));
const databases: string[] = [];

/** A data file of `tasks` tasks with their activity entries, written as a stream (never whole in memory). */
async function writeFixture(path: string, tasks: number): Promise<void> {
  const out = createWriteStream(path);
  const write = async (text: string) => {
    if (!out.write(text)) await once(out, 'drain');
  };
  const at = (i: number) => new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString();
  const id = (prefix: string, i: number) => `${prefix}_${String(i).padStart(9, '0')}`;
  const projects = Math.ceil(tasks / TASKS_PER_PROJECT);
  await write('{"format":"pm-service/1","exportedAt":"2026-11-29T00:00:00.000Z",\n"teams":[\n');
  const members = [{ username: 'alice', role: 'lead' }];
  await write(
    Array.from({ length: 10 }, (_, i) =>
      JSON.stringify({
        id: id('team', i),
        name: `Team ${i}`,
        description: '',
        members,
        createdAt: at(0),
        updatedAt: at(0),
      }),
    ).join(',\n'),
  );
  await write('\n],\n"projects":[\n');
  for (let p = 0; p < projects; p++) {
    const project = {
      id: id('proj', p),
      name: `Project ${p}`,
      description: 'A project of the bench',
      status: 'active',
      teamId: id('team', p % 10),
      createdAt: at(p),
      updatedAt: at(p),
    };
    await write(`${p > 0 ? ',\n' : ''}${JSON.stringify(project)}`);
  }
  const part = 1_000;
  for (const kind of ['tasks', 'activityLog'] as const) {
    await write(`\n],\n"${kind}":[\n`);
    for (let start = 0; start < tasks; start += part) {
      const lines: string[] = [];
      for (let i = start; i < Math.min(tasks, start + part); i++) {
        const time = at(projects + i);
        const record =
          kind === 'tasks'
            ? {
                id: id('task', i),
                projectId: id('proj', Math.floor(i / TASKS_PER_PROJECT)),
                title: `Task number ${i} of the bench`,
                description: 'Something to do, described in a sentence or two as tasks usually are.',
                status: ['todo', 'in_progress', 'done'][i % 3],
                priority: ['low', 'medium', 'high'][i % 3],
                assignee: i % 4 === 0 ? null : ['alice', 'bob', 'carol'][i % 3],
                createdAt: time,
                updatedAt: time,
              }
            : {
                id: id('act', i),
                action: 'task.created',
                actor: 'alice',
                resourceType: 'task',
                resourceId: id('task', i),
                summary: `Task number ${i} of the bench created`,
                metadata: { projectId: id('proj', Math.floor(i / TASKS_PER_PROJECT)) },
                timestamp: time,
              };
        lines.push(JSON.stringify(record));
      }
      await write(`${start > 0 ? ',\n' : ''}${lines.join(',\n')}`);
    }
  }
  await write('\n]\n}\n');
  out.end();
  await once(out, 'close');
}

interface Measured {
  seconds: number;
  maxRssMb: number;
}

/**
 * Runs a command as `npm run <name>` does (`tsx scripts/<name>.ts`), under `/usr/bin/time`: its wall time and its
 * peak RSS. `stdout`: a file to write its output to.
 */
async function measure(name: 'import' | 'export', args: string[], stdout?: string): Promise<Measured> {
  const command = `${process.execPath} --import tsx scripts/${name}.ts ${args.map(quote).join(' ')}${
    stdout ? ` > ${quote(stdout)}` : ''
  }`;
  const env = { ...process.env };
  delete env.DATABASE_URL;
  delete env.DATA_DIR;
  const t0 = performance.now();
  const stderr = await new Promise<string>((resolve, reject) => {
    execFile(
      '/usr/bin/time',
      ['-f', 'maxrss=%M', 'sh', '-c', command],
      { env, maxBuffer: 16 * 1024 * 1024 },
      (error, _out, err) => (error ? reject(new Error(`${name} failed: ${err}`)) : resolve(err)),
    );
  });
  const seconds = (performance.now() - t0) / 1000;
  const kb = Number(/maxrss=(\d+)/.exec(stderr)?.[1]);
  return { seconds, maxRssMb: kb / 1024 };
}

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** The file's SHA-256 but for its first line (where `exportedAt` is), and how many tasks and entries it holds. */
async function digest(path: string): Promise<{ hash: string; tasks: number; entries: number }> {
  const hash = createHash('sha256');
  let first = true;
  let tasks = 0;
  let entries = 0;
  let rest = '';
  for await (const chunk of createReadStream(path, 'utf8')) {
    const lines = (rest + chunk).split('\n');
    rest = lines.pop()!;
    for (const line of lines) {
      if (first) {
        first = false;
        continue;
      }
      if (line.startsWith('{"id":"task_')) tasks++;
      else if (line.startsWith('{"id":"act_')) entries++;
      hash.update(line);
    }
  }
  hash.update(rest);
  return { hash: hash.digest('hex'), tasks, entries };
}

async function target(store: 'postgres' | 'embedded'): Promise<string[]> {
  if (store === 'embedded') return ['--data-dir', mkdtempSync(join(dir, 'data-'))];
  const name = `pm_bench_data_${process.pid}_${databases.length}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  databases.push(name);
  return ['--database-url', dbUrl(name)];
}

const rows: string[] = [];
try {
  for (const size of SIZES) {
    const fixture = join(dir, `fixture-${size}.json`);
    const t0 = performance.now();
    await writeFixture(fixture, size);
    const mb = statSync(fixture).size / 1e6;
    log(
      `${size.toLocaleString('en')} tasks: a file of ${mb.toFixed(0)} MB, written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    const hashes = new Set<string>();
    for (const store of STORES) {
      const where = await target(store);
      const imported = await measure('import', [fixture, ...where]);
      const exportFile = join(dir, `export-${store}-${size}.json`);
      const exported = await measure('export', where, exportFile);
      const got = await digest(exportFile);
      if (got.tasks !== size || got.entries !== size) {
        throw new Error(`${store}: the export holds ${got.tasks} tasks and ${got.entries} entries, not ${size}`);
      }
      hashes.add(got.hash);
      rmSync(exportFile);
      if (where[0] === '--data-dir') rmSync(where[1]!, { recursive: true, force: true });
      for (const [what, m] of [
        ['import', imported],
        ['export', exported],
      ] as const) {
        const row = `| ${store} | ${size.toLocaleString('en')} | ${what} | ${m.seconds.toFixed(1)} s | ${m.maxRssMb.toFixed(0)} MB |`;
        rows.push(row);
        log(row);
      }
    }
    if (hashes.size > 1) throw new Error('the stores exported different files');
    rmSync(fixture);
  }
  log('\n| Store | Tasks (and entries) | Command | Wall time | Peak RSS |\n|---|---|---|---|---|');
  for (const row of rows) log(row);
} finally {
  if (databases.length > 0) {
    await admin(async (c) => {
      for (const name of databases) await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    });
  }
  rmSync(dir, { recursive: true, force: true });
}
