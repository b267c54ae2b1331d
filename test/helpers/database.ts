/**
 * A fresh database for each test: an SQLite file in a temp folder, or, when TEST_DATABASE_URL names
 * a PostgreSQL server, a new schema on it (empty: `freshDatabase`) or a new database holding Souk's
 * migrated tables (`migratedDatabase`), dropped afterwards.
 */
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { onServer } from '../../tools/postgres.js';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/store/index.js';

export interface TestDatabase {
  url: string;
  dialect: 'sqlite' | 'postgres' | 'mysql';
  drop(): Promise<void>;
}

export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL?.startsWith('postgres') ? process.env.TEST_DATABASE_URL : undefined;

function withSearchPath(url: string, schema: string): string {
  const u = new URL(url);
  u.searchParams.set('options', `-c search_path=${schema}`);
  return u.toString();
}

/**
 * Schemas dropped in the background, a few at a time: a drop waits mostly on the disk (PostgreSQL
 * unlinks each table's and index's files), so a test's end does not wait for it, and a process that
 * closed many Souks at its end drops their schemas side by side. The pending drops hold the process
 * open (their connections) until they are done.
 */
const DROPS_AT_ONCE = 4;
const dropQueue: Array<() => Promise<void>> = [];
let dropping = 0;
function dropLater(drop: () => Promise<void>): void {
  dropQueue.push(drop);
  pumpDrops();
}
function pumpDrops(): void {
  while (dropping < DROPS_AT_ONCE && dropQueue.length > 0) {
    const drop = dropQueue.shift()!;
    dropping++;
    void drop()
      .catch((err: unknown) => console.error(`dropping a test schema: ${(err as Error).message}`))
      .finally(() => {
        dropping--;
        pumpDrops();
      });
  }
}

/** `postgresUrl`: a PostgreSQL server to make the schema on, whatever TEST_DATABASE_URL says; `null`: SQLite. */
export async function freshDatabase(postgresUrl: string | null | undefined = TEST_POSTGRES_URL): Promise<TestDatabase> {
  if (postgresUrl) {
    const schema = `souk_test_${randomBytes(6).toString('hex')}`;
    await onServer(postgresUrl, `create schema ${schema}`);
    return {
      url: withSearchPath(postgresUrl, schema),
      dialect: 'postgres',
      async drop() {
        dropLater(() => onServer(postgresUrl, `drop schema ${schema} cascade`));
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'souk-test-'));
  return {
    url: `sqlite:${join(dir, 'souk.db')}`,
    dialect: 'sqlite',
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The same server, database `name`. */
function onDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  u.searchParams.delete('options');
  return u.toString();
}

/**
 * This process's template on each PostgreSQL server: a database migrated once, by the code under
 * test, and copied for each migratedDatabase. Migrating takes some 150 statements and a third of a
 * second; a copy, a fraction of that. Dropped when the process has nothing else to do.
 */
const templates = new Map<string, Promise<string>>();
function templateOn(postgresUrl: string): Promise<string> {
  if (!templates.has(postgresUrl)) templates.set(postgresUrl, makeTemplate(postgresUrl));
  return templates.get(postgresUrl)!;
}

/** Migrates the database at `url` to the latest and closes it (PostgreSQL copies no database with a connection open; SQLite folds its log into the file). */
async function migrateAndClose(url: string): Promise<void> {
  const store = openStore(url, loadConfig({ DATABASE_URL: url }).db);
  try {
    await store.migrate();
  } finally {
    await store.close();
  }
}

const dropDatabaseLater = (postgresUrl: string, name: string) =>
  dropLater(() => onServer(postgresUrl, `drop database ${name} with (force)`));

async function makeTemplate(postgresUrl: string): Promise<string> {
  const name = `souk_test_template_${randomBytes(6).toString('hex')}`;
  await onServer(postgresUrl, `create database ${name}`);
  let dropped = false;
  process.on('beforeExit', () => {
    if (dropped) return;
    dropped = true;
    dropDatabaseLater(postgresUrl, name);
  });
  await migrateAndClose(onDatabase(postgresUrl, name));
  return name;
}

/** This process's SQLite template: a file migrated once and copied for each migratedDatabase. */
let sqliteTemplate: Promise<string> | undefined;
async function makeSqliteTemplate(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'souk-test-template-'));
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, 'souk.db');
  await migrateAndClose(`sqlite:${file}`);
  return file;
}

/**
 * A database with Souk's tables migrated and no rows (the settings included: each test's Souk makes
 * its own secrets): a copy of this process's template, on PostgreSQL or SQLite.
 */
export async function migratedDatabase(postgresUrl: string | null | undefined = TEST_POSTGRES_URL): Promise<TestDatabase> {
  if (!postgresUrl) {
    const template = await (sqliteTemplate ??= makeSqliteTemplate());
    const database = await freshDatabase(null);
    copyFileSync(template, database.url.slice('sqlite:'.length));
    return database;
  }
  const template = await templateOn(postgresUrl);
  const name = `souk_test_${randomBytes(6).toString('hex')}`;
  await onServer(postgresUrl, `create database ${name} template ${template}`);
  return {
    url: onDatabase(postgresUrl, name),
    dialect: 'postgres',
    async drop() {
      dropDatabaseLater(postgresUrl, name);
    },
  };
}
