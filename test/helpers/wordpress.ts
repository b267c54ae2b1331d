/**
 * A WordPress site's database for a test: a fresh MariaDB/MySQL database of its own (on
 * TEST_MYSQL_URL, default the machine's MariaDB at 127.0.0.1:3306 as root), loaded from one of the
 * recorded site's dumps (test/fixtures/original/*.sql) with the mariadb client, dropped after the
 * test file. `query` reads it back for the checks.
 *
 * The drop waits for the file's end (a hook of the root test, which runs after every test's own
 * hooks; with the runner's test isolation `none`, the end of the last file of the process): a Souk
 * a test started on the database is closed by then, so no open transaction of its holds the
 * metadata locks DROP DATABASE waits for, and it reads no dropped database.
 */
import { after } from 'node:test';
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createConnection, type Connection } from 'mysql2/promise';

export const TEST_MYSQL_URL = process.env.TEST_MYSQL_URL || 'mysql://root@127.0.0.1:3306';

/** The recorded site's users (wordpress-seeded.sql), by login, and their logins by id. */
export const SITE_USERS = { alice: 2, bob: 3, carol: 4 } as const;
export const SITE_LOGINS: Record<number, string> = Object.fromEntries(Object.entries(SITE_USERS).map(([login, id]) => [id, login]));
/** Their passwords, with which they signed in on the recorded site (original/01-login.txt). */
export const SITE_PASSWORDS = { alice: 'alice-pass-123', bob: 'bob-pass-123', carol: 'carol-pass-123' } as const;
/** Some of its listings, with their owners. */
export const SITE_LISTINGS = { iphone: 8, table: 10, laptop: 14 } as const; // bob's, bob's, carol's
const DUMPS = fileURLToPath(new URL('../fixtures/original/', import.meta.url));

export interface WordpressDatabase {
  /** The DATABASE_URL of the site's database. */
  url: string;
  name: string;
  query<T = Record<string, unknown>>(text: string, values?: unknown[]): Promise<T[]>;
  drop(): Promise<void>;
}

function client(url: string, args: string[], input?: string) {
  const u = new URL(url);
  const result = spawnSync(
    'mariadb',
    [`-h${u.hostname}`, `-P${u.port || '3306'}`, `-u${decodeURIComponent(u.username || 'root')}`, ...args],
    {
      input,
      env: { ...process.env, ...(u.password ? { MYSQL_PWD: decodeURIComponent(u.password) } : {}) },
      maxBuffer: 64 << 20,
      // A hang fails the test instead of holding the suite.
      timeout: 120_000,
    },
  );
  if (result.status !== 0) throw new Error(`mariadb ${args.join(' ')}: ${result.stderr?.toString() || result.error?.message}`);
}

/** Whether the test MySQL server answers (the MySQL tests skip, or fail under CI, without it). */
export function mysqlReachable(): boolean {
  try {
    client(TEST_MYSQL_URL, ['-e', 'select 1']);
    return true;
  } catch {
    return false;
  }
}

/** A new database loaded from `dump` (a file of original/), dropped when the test file ends. */
export async function wordpressDatabase(dump = 'wordpress-seeded.sql'): Promise<WordpressDatabase> {
  const name = `souk_wp_${randomBytes(5).toString('hex')}`;
  client(TEST_MYSQL_URL, ['-e', `create database ${name} character set utf8mb4 collate utf8mb4_unicode_520_ci`]);
  client(TEST_MYSQL_URL, [name], readFileSync(`${DUMPS}${dump}`, 'utf8'));
  const url = `${TEST_MYSQL_URL.replace(/\/+$/, '')}/${name}`;
  let connection: Connection | undefined;
  const db: WordpressDatabase = {
    url,
    name,
    async query<T>(text: string, values: unknown[] = []) {
      connection ??= await createConnection({ uri: url, dateStrings: true, charset: 'utf8mb4' });
      const [found] = await connection.query(text, values);
      return found as T[];
    },
    async drop() {
      await connection?.end();
      connection = undefined;
      dropAtEnd.delete(db);
      // Over a connection, not the client, which would block the event loop while it waits.
      const server = await createConnection({ uri: TEST_MYSQL_URL });
      try {
        await server.query(`drop database if exists ${name}`);
      } finally {
        await server.end();
      }
    },
  };
  dropAtEnd.add(db);
  return db;
}

const dropAtEnd = new Set<WordpressDatabase>();
after(async () => {
  for (const db of dropAtEnd) await db.drop();
});
