#!/usr/bin/env node
/**
 * `npm test`: each test file runs where its result can differ, once (README, "Tests").
 *
 *   node scripts/run-tests.mjs                      the whole suite: every pass below
 *   node scripts/run-tests.mjs test/http/x.test.ts  those files (or folders), in each pass of their class
 *   --db=sqlite | --db=postgres | --db=mysql       only that database's pass
 *   --list                                          print each file's class and passes, run nothing
 *   --second-runtime                                only what differs between Node.js lines (CI runs it under the other line)
 *
 * Every test file is in exactly one class, by the most specific entry of CLASSES that names it
 * (a folder or a file); a file in none, or an entry that names no file, fails the run. The class
 * says the passes: `once` (no database: SQLite pass), `every` (SQLite and PostgreSQL), `sqlite`,
 * `postgres`, `mysql` (the MySQL store on MariaDB, whatever TEST_DATABASE_URL says). The files of
 * SECOND_RUNTIME are those whose result can differ between Node.js 22 and 24; `--second-runtime`
 * runs them alone, on SQLite.
 *
 * Within a pass, files run side by side (each has its own database, schema, ports and Redis
 * prefix), except ALONE: they kill, starve or time a server, or churn the shared database, and run
 * one at a time afterwards so that a neighbour's load cannot turn their timeouts into failures.
 * The width is one more than the cores; TEST_CONCURRENCY overrides it. A process runs a group of
 * files one after another (TEST_GROUP_SIZE, default 4; the ALONE files are one group), so that
 * they share the cost of loading Souk: a test that changes process-wide state (the working
 * folder, the environment, a listener on `process`) puts it back. A file's top-level `after`
 * hooks run when its group's process ends, so its servers outlive it: a test that watches
 * something process-wide tells its own objects apart (a driver's clients by their schema), or
 * its file is in OWN_PROCESS. PostgreSQL is
 * TEST_DATABASE_URL, or the local server on 127.0.0.1:5432 (database `test`); without one the
 * PostgreSQL pass is skipped with a warning, except under CI (CI=true), where that is an error.
 * The run ends with one line summing every pass: `N passed, N failed, N skipped`; it exits
 * non-zero when a test failed.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';

const CLASSES = {
  once: [
    'test/auth/api-key.test.ts',
    'test/auth/forged-token-memory.test.ts',
    'test/auth/passwords.test.ts',
    'test/auth/token-cache-size.test.ts',
    'test/auth/user-cache.test.ts',
    'test/auth/password-threads.test.ts',
    'test/browser/console.test.ts',
    'test/browser/docs-page.test.ts',
    'test/cli/import-schema.test.ts',
    'test/domain/latest-read.test.ts',
    'test/domain/staff.test.ts',
    'test/events/mail-tls.test.ts',
    'test/events/pusher-http.test.ts',
    'test/events/pusher-signature.test.ts',
    'test/events/stream-hub.test.ts',
    'test/http/auth-throttle.test.ts',
    'test/http/connection-limits.test.ts',
    'test/http/file-access.test.ts',
    'test/http/forged-tokens.test.ts',
    'test/http/limits.test.ts',
    'test/http/rate-limit.test.ts',
    'test/http/schema-compilers.test.ts',
    'test/http/sign-in-queue.test.ts',
    'test/http/sign-in-work.test.ts',
    'test/http/token-attacks.test.ts',
    'test/ops/config.test.ts',
    'test/ops/cors.test.ts',
    'test/ops/logging.test.ts',
    'test/ops/openapi-requests.test.ts',
    'test/ops/openapi.test.ts',
    'test/ops/secret-files.test.ts',
    'test/present/',
    'test/quickstart.test.ts',
    'test/repository.test.ts',
    'test/store/files/s3.test.ts',
  ],
  every: [
    'test/auth/',
    'test/browser/',
    'test/domain/',
    'test/events/',
    'test/faults/crash.test.ts',
    'test/faults/shutdown.test.ts',
    'test/faults/upload-crash.test.ts',
    'test/http/',
    'test/ops/',
    'test/store/',
  ],
  // The CLI's commands run the use cases the server API runs (one implementation, two doors), and
  // those are tested on every database through HTTP: the commands themselves, on SQLite.
  sqlite: ['test/store/sqlite/', 'test/faults/disk-full.test.ts', 'test/bench/', 'test/cli/'],
  postgres: [
    'test/store/postgres/',
    'test/bench/pgbench.test.ts',
    'test/bench/floor-postgres.test.ts',
    'test/store/multi-instance.test.ts',
    'test/http/events-instances.test.ts',
    'test/http/live-instances.test.ts',
  ],
  mysql: ['test/store/mysql/'],
};

/** Where Node.js 22 and 24 differ under Souk: the SQLite engine (node:sqlite of each line), the HTTP parser; and a smoke of the whole server. */
const SECOND_RUNTIME = [
  'test/store/sqlite/',
  'test/faults/disk-full.test.ts',
  'test/http/hostile-input.test.ts',
  'test/quickstart.test.ts',
];

/** Files that kill, starve or time the server, or churn the shared database: one at a time, after the others. */
const ALONE = [
  'test/faults/',
  'test/browser/',
  'test/events/pusher-faults.test.ts',
  'test/store/multi-instance.test.ts',
  'test/store/postgres/outage.test.ts',
  'test/store/postgres/migrate-race.test.ts',
  'test/store/mysql/concurrency.test.ts',
  'test/store/mysql/store.test.ts',
  'test/store/mysql/crash.test.ts',
  'test/store/mysql/events.test.ts',
];

/**
 * Files that measure the whole process (its heap, its warnings, its SQLite statements) run in a process of their own:
 * another file's servers, open until their group's process ends, would count in their measure.
 */
const OWN_PROCESS = ['test/auth/forged-token-memory.test.ts', 'test/http/sign-in-throttle.test.ts', 'test/http/typing.test.ts'];

const PASSES = [
  { db: 'sqlite', label: 'SQLite', classes: ['once', 'every', 'sqlite'] },
  { db: 'mysql', label: 'MariaDB (the MySQL store)', classes: ['mysql'] },
  { db: 'postgres', label: 'PostgreSQL', classes: ['every', 'postgres'] },
];

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 13)) {
  console.error(`npm test needs Node.js 22.13 or newer (package.json engines); this is ${process.version}`);
  process.exit(1);
}

const { values: options, positionals: only } = parseArgs({
  allowPositionals: true,
  options: { db: { type: 'string' }, 'second-runtime': { type: 'boolean', default: false }, list: { type: 'boolean', default: false } },
});
if (options.db && !PASSES.some((p) => p.db === options.db)) {
  console.error(`--db must be one of ${PASSES.map((p) => p.db).join(', ')}`);
  process.exit(1);
}

const posix = (path) => path.split(sep).join('/');
function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [posix(path)] : [];
  });
}
const names = (entry, file) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry);
const matches = (entries, file) => entries.some((entry) => names(entry, file));

/** Each file's class: its most specific entry's. Errors for files in no class and entries that name no file. */
function classify(files) {
  const entries = Object.entries(CLASSES).flatMap(([name, list]) => list.map((entry) => ({ name, entry })));
  const problems = [];
  const seen = new Set();
  for (const { entry } of entries) {
    if (seen.has(entry)) problems.push(`${entry} is in two classes`);
    seen.add(entry);
    if (!files.some((file) => names(entry, file))) problems.push(`${entry} names no test file`);
  }
  for (const entry of [...SECOND_RUNTIME, ...ALONE, ...OWN_PROCESS])
    if (!files.some((file) => names(entry, file))) problems.push(`${entry} names no test file`);
  const classOf = new Map();
  for (const file of files) {
    const best = entries.filter(({ entry }) => names(entry, file)).sort((a, b) => b.entry.length - a.entry.length)[0];
    if (best) classOf.set(file, best.name);
    else problems.push(`${file} is in no class: add it to CLASSES in scripts/run-tests.mjs`);
  }
  return { classOf, problems };
}

const all = testFiles('test').sort();
const { classOf, problems } = classify(all);
if (problems.length) {
  for (const problem of problems) console.error(`test classes: ${problem}`);
  process.exit(1);
}
/** The named files, and the test files under each named folder. */
function named(paths) {
  return paths.flatMap((path) => {
    const file = posix(relative('.', path));
    const folder = `${file.replace(/\/$/, '')}/`;
    const under = all.filter((f) => f.startsWith(folder));
    if (classOf.has(file) || under.length === 0) return [file];
    return under;
  });
}
const chosen = only.length ? [...new Set(named(only))] : all;
for (const file of chosen) {
  if (!classOf.has(file)) {
    console.error(`${file}: not a test file or folder under test/`);
    process.exit(1);
  }
}

if (options.list) {
  for (const file of chosen) {
    const passes = PASSES.filter((p) => p.classes.includes(classOf.get(file))).map((p) => p.db);
    if (matches(SECOND_RUNTIME, file)) passes.push('second runtime');
    console.log(`${file}\t${classOf.get(file)}\t${passes.join(', ')}${matches(ALONE, file) ? '\talone' : ''}`);
  }
  process.exit(0);
}

// One more file than cores: a file spends part of its time waiting (timers, child processes, the
// databases), and the extra one fills that wait.
const width = Number(process.env.TEST_CONCURRENCY) || Math.max(2, availableParallelism()) + 1;
const GROUP_SIZE = Number(process.env.TEST_GROUP_SIZE) || 4;
const countsDir = mkdtempSync(join(tmpdir(), 'souk-test-counts-'));
/** The pass of each `node --test` run, in order; run i writes its counts to i.json. */
const runLabels = [];

/**
 * One `node --test` run of `files`, one after another in a single process (isolation none: the
 * files share the ~1.5 s of CPU it takes to load Souk), its output kept until it ends so that runs
 * side by side do not interleave: the spec reporter on stdout (without its own summary), the counts
 * in a file of their own.
 */
function runFiles(label, files, env) {
  if (files.length === 0) return Promise.resolve(0);
  const countsFile = join(countsDir, `${runLabels.push(label) - 1}.json`);
  const child = spawn(
    process.execPath,
    [
      '--import',
      'tsx',
      '--test',
      '--experimental-test-isolation=none',
      `--test-reporter=${join(import.meta.dirname, 'test-spec.mjs')}`,
      '--test-reporter-destination=stdout',
      `--test-reporter=${join(import.meta.dirname, 'test-counts.mjs')}`,
      `--test-reporter-destination=${countsFile}`,
      ...files,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } },
  );
  const output = [];
  child.stdout.on('data', (chunk) => output.push(chunk));
  child.stderr.on('data', (chunk) => output.push(chunk));
  return new Promise((resolve) => {
    child.on('close', (code) => {
      process.stdout.write(Buffer.concat(output));
      resolve(code ?? 1);
    });
  });
}

/** Runs `groups` (lists of files), `width` of them at a time, each in a process of its own; resolves with the worst exit status. */
async function runGroups(label, groups, width, env) {
  const queue = [...groups];
  let status = 0;
  const worker = async () => {
    for (let group = queue.shift(); group; group = queue.shift()) status = (await runFiles(label, group, env)) || status;
  };
  await Promise.all(Array.from({ length: width }, worker));
  return status;
}

/**
 * `files` in groups of at most `size`, dealt out in turn: neighbours (the slow CLI files of one
 * folder) land in different groups, so that no group holds several of them.
 */
function groupsOf(files, size) {
  const count = Math.ceil(files.length / size);
  return Array.from({ length: count }, (_, g) => files.filter((_, i) => i % count === g));
}

async function runPass(label, files, env) {
  const together = files.filter((f) => !matches(ALONE, f));
  const alone = files.filter((f) => matches(ALONE, f));
  console.log(
    `\n=== ${label}: ${files.length} test files (${together.length} side by side, ${width} at a time; then ${alone.length} alone), Node.js ${process.version} ===`,
  );
  const started = Date.now();
  const own = together.filter((f) => matches(OWN_PROCESS, f)).map((f) => [f]);
  const grouped = groupsOf(
    together.filter((f) => !matches(OWN_PROCESS, f)),
    GROUP_SIZE,
  );
  const first = await runGroups(label, [...own, ...grouped], width, env);
  const between = Date.now();
  const second = await runGroups(label, [alone], 1, env);
  const s = (ms) => `${(ms / 1000).toFixed(0)} s`;
  console.log(`=== ${label}: side by side ${s(between - started)}, alone ${s(Date.now() - between)}`);
  return second || first;
}

async function reachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 3000 });
  try {
    await client.connect();
    await client.query('select 1');
    return true;
  } catch (err) {
    console.warn(`PostgreSQL at ${url.replace(/\/\/[^@]*@/, '//***@')} is not reachable: ${err.message}`);
    return false;
  } finally {
    await client.end().catch(() => {});
  }
}

async function postgresEnv() {
  const url = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  if (await reachable(url)) return { TEST_DATABASE_URL: url };
  if (process.env.CI === 'true') {
    console.error('CI=true: the PostgreSQL pass is required');
    return undefined;
  }
  console.warn('Skipping the PostgreSQL pass (set TEST_DATABASE_URL to run it).');
  return null;
}

let status = 0;
if (options['second-runtime']) {
  status = await runPass(
    'SQLite, what differs between Node.js lines',
    chosen.filter((f) => matches(SECOND_RUNTIME, f)),
    { TEST_DATABASE_URL: '' },
  );
} else {
  for (const pass of PASSES.filter((p) => !options.db || p.db === options.db)) {
    const files = chosen.filter((f) => pass.classes.includes(classOf.get(f)));
    if (files.length === 0) continue;
    const env = pass.db === 'postgres' ? await postgresEnv() : { TEST_DATABASE_URL: '' };
    if (env === undefined) status = 1;
    if (!env) continue;
    status = (await runPass(pass.label, files, env)) || status;
  }
}

const total = { passed: 0, failed: 0, skipped: 0 };
const fileTimes = [];
for (const [i, label] of runLabels.entries()) {
  let counts;
  try {
    counts = JSON.parse(readFileSync(join(countsDir, `${i}.json`), 'utf8'));
  } catch {
    counts = { passed: 0, failed: 1, skipped: 0, ms: {} }; // the run died before its reporter wrote
  }
  for (const key of Object.keys(total)) total[key] += counts[key];
  for (const [file, ms] of Object.entries(counts.ms)) fileTimes.push({ file: posix(relative('.', file)), label, ms });
}
rmSync(countsDir, { recursive: true, force: true });
// The slowest files, so that a slow-down shows where it is (the sum of each file's top-level tests).
if (fileTimes.length > 1) {
  console.log('\nslowest test files (seconds, pass):');
  for (const { file, label, ms } of fileTimes.sort((a, b) => b.ms - a.ms).slice(0, 10))
    console.log(`  ${(ms / 1000).toFixed(1).padStart(6)}  ${file} (${label})`);
}
// TEST_TIMES=path writes every file's time there, to find what to make faster.
if (process.env.TEST_TIMES)
  writeFileSync(process.env.TEST_TIMES, fileTimes.map(({ file, label, ms }) => `${(ms / 1000).toFixed(1)}\t${file}\t${label}\n`).join(''));
if (status !== 0 && total.failed === 0) total.failed = 1; // a run that failed outside any test
console.log(`\n${total.passed} passed, ${total.failed} failed${total.skipped ? `, ${total.skipped} skipped` : ''}`);
process.exit(total.failed > 0 || status !== 0 ? 1 : 0);
