#!/usr/bin/env node
/**
 * `npm test`: the whole suite on SQLite, then again on PostgreSQL (each test in a fresh schema).
 * Files run side by side (each has its own database, schema, ports and Redis prefix), except the
 * few that measure the process under stress or kill it: those run alone afterwards, so that a
 * neighbour's load cannot turn their timeouts into failures. TEST_CONCURRENCY overrides the width.
 * PostgreSQL is TEST_DATABASE_URL, or the local server on 127.0.0.1:5432 (database `test`).
 * Without a reachable PostgreSQL the second pass is skipped with a warning, except under CI
 * (CI=true), where it is an error. The MySQL store's tests (test/store/mysql/, on the machine's
 * MariaDB, each in a database of its own) do not depend on TEST_DATABASE_URL: they run in the
 * SQLite pass only.
 */
import { spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, sep } from 'node:path';
import pg from 'pg';

const args = process.argv.slice(2);
const only = args.filter((a) => !a.startsWith('--'));
const sqliteOnly = args.includes('--sqlite-only');

function testFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Files that kill, starve or time the server, or churn the shared database: run one at a time, after the others. */
const ALONE = [
  `${sep}faults${sep}`,
  `${sep}browser${sep}`,
  'multi-instance.test.ts',
  `postgres${sep}outage.test.ts`,
  'migrate-race.test.ts',
  `mysql${sep}concurrency.test.ts`,
  `mysql${sep}store.test.ts`,
  `mysql${sep}crash.test.ts`,
  `mysql${sep}events.test.ts`,
];
/** Tests of the MySQL store, which never read TEST_DATABASE_URL: once is enough. */
const isMysql = (file) => file.includes(`${sep}store${sep}mysql${sep}`);
const isAlone = (file) => ALONE.some((part) => file.includes(part));
const width = Number(process.env.TEST_CONCURRENCY) || Math.max(2, availableParallelism());

function runFiles(files, concurrency, env) {
  if (files.length === 0) return 0;
  const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', `--test-concurrency=${concurrency}`, ...files], {
    stdio: 'inherit',
    env: { ...process.env, ...env },
  });
  return result.status ?? 1;
}

function runSuite(label, env, { mysql = true } = {}) {
  const files = (only.length ? only : testFiles('test').sort()).filter((f) => mysql || !isMysql(f));
  const together = files.filter((f) => !isAlone(f));
  const alone = files.filter(isAlone);
  console.log(
    `\n=== ${label}: ${files.length} test files (${together.length} side by side, ${width} at a time; then ${alone.length} alone), Node.js ${process.version} ===`,
  );
  const first = runFiles(together, width, env);
  return runFiles(alone, 1, env) || first;
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

let status = runSuite('SQLite', { TEST_DATABASE_URL: '' });
if (!sqliteOnly) {
  const url = process.env.TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
  if (await reachable(url)) {
    status = runSuite('PostgreSQL', { TEST_DATABASE_URL: url }, { mysql: false }) || status;
  } else if (process.env.CI === 'true') {
    console.error('CI=true: the PostgreSQL pass is required');
    status = 1;
  } else {
    console.warn('Skipping the PostgreSQL pass (set TEST_DATABASE_URL to run it).');
  }
}
process.exit(status);
