/**
 * A fresh database for one bench run: an SQLite file in a temp folder, a new schema in the
 * PostgreSQL database named by DATABASE_URL (search_path set through the connection options), or
 * a new database on the MySQL/MariaDB server named by DATABASE_URL (mysql://user@host:port/any),
 * holding a WordPress site's tables as test/fixtures/original/wordpress-seeded.sql creates them,
 * with its options and without its few users, posts and terms (dataset-wordpress.ts fills them).
 * PostgreSQL connections carry an application_name, so the bench can find Souk's backends
 * in pg_stat_activity and measure the database's CPU time; on MySQL, Souk's connections are the
 * only ones on the fresh database, found in information_schema.processlist.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createConnection } from 'mysql2/promise';
import { onServer } from '../tools/postgres.js';
import { ROOT } from '../tools/processes.js';

/** The recorded site's dump: its schema (the plugin's 4.x chat tables) and its options. */
export const WORDPRESS_DUMP = resolve(ROOT, 'test/fixtures/original/wordpress-seeded.sql');

/** The site's tables whose rows the bench replaces with its data set (wp_options is kept). */
const WORDPRESS_CONTENT_TABLES = [
  'users',
  'usermeta',
  'posts',
  'postmeta',
  'terms',
  'term_taxonomy',
  'termmeta',
  'term_relationships',
  'comments',
  'commentmeta',
];

export interface BenchDatabase {
  dialect: 'sqlite' | 'postgres' | 'mysql';
  /** The DATABASE_URL Souk and the bench use. */
  url: string;
  /** Where the data lives, for --keep. */
  location: string;
  /** PostgreSQL: the application_name of Souk's connections. */
  appName: string | undefined;
  /** PostgreSQL: the server URL without the schema, for admin queries; MySQL: the server URL, no database. */
  adminUrl: string | undefined;
  /** MySQL: the fresh database's name. */
  databaseName?: string;
  drop(): Promise<void>;
}

function withParams(url: string, params: Record<string, string>): string {
  const u = new URL(url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return u.toString();
}

export function redact(url: string): string {
  return url.replace(/\/\/[^@/]*@/, '//***@');
}

/** A new database on the MySQL/MariaDB server of `url` with the recorded WordPress site's tables and options. */
async function freshWordpressDatabase(url: string, tag: string): Promise<BenchDatabase> {
  const name = `souk_bench_${tag}`;
  const server = new URL(url);
  server.pathname = '/';
  server.search = '';
  const adminUrl = server.toString();
  const admin = await createConnection({ uri: adminUrl, multipleStatements: true, charset: 'utf8mb4' });
  try {
    await admin.query(`create database ${name} character set utf8mb4 collate utf8mb4_unicode_520_ci`);
    await admin.query(`use ${name}`);
    // The dump as the mariadb client would run it (its first line is a client command).
    const dump = readFileSync(WORDPRESS_DUMP, 'utf8').replace(/^\/\*M!999999\\- enable the sandbox mode \*\/.*\n/, '');
    await admin.query(dump);
    for (const table of WORDPRESS_CONTENT_TABLES) await admin.query(`delete from wp_${table}`);
  } catch (err) {
    await admin.query(`drop database if exists ${name}`).catch(() => {});
    throw err;
  } finally {
    await admin.end();
  }
  const own = new URL(url);
  own.pathname = `/${name}`;
  return {
    dialect: 'mysql',
    url: own.toString(),
    location: `database ${name} on ${redact(adminUrl)}`,
    appName: undefined,
    adminUrl,
    databaseName: name,
    async drop() {
      const c = await createConnection({ uri: adminUrl });
      try {
        await c.query(`drop database if exists ${name}`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * A data set an earlier run kept (--keep), used again (--reuse): `where` is its SQLite file or its
 * PostgreSQL schema in the database DATABASE_URL names. Never dropped.
 */
export function keptBenchDatabase(where: string, serverUrl: string | undefined): BenchDatabase {
  const keep = async () => {};
  if (serverUrl?.startsWith('mysql://')) throw new Error('--reuse runs on SQLite and PostgreSQL');
  if (serverUrl) {
    if (!/^souk_bench_[0-9a-f]+$/.test(where)) throw new Error(`--reuse: "${where}" is not a schema the bench kept (souk_bench_...)`);
    return {
      dialect: 'postgres',
      url: withParams(serverUrl, { options: `-c search_path=${where}`, application_name: where }),
      location: `schema ${where} in ${redact(serverUrl)}`,
      appName: where,
      adminUrl: serverUrl,
      drop: keep,
    };
  }
  if (!existsSync(where)) throw new Error(`--reuse: no SQLite file at ${where}`);
  const file = resolve(where);
  return { dialect: 'sqlite', url: `sqlite:${file}`, location: file, appName: undefined, adminUrl: undefined, drop: keep };
}

export async function freshBenchDatabase(serverUrl: string | undefined): Promise<BenchDatabase> {
  const tag = randomBytes(4).toString('hex');
  if (serverUrl?.startsWith('mysql://')) return freshWordpressDatabase(serverUrl, tag);
  const postgresUrl = serverUrl;
  if (postgresUrl) {
    const schema = `souk_bench_${tag}`;
    await onServer(postgresUrl, `create schema ${schema}`);
    return {
      dialect: 'postgres',
      url: withParams(postgresUrl, { options: `-c search_path=${schema}`, application_name: schema }),
      location: `schema ${schema} in ${redact(postgresUrl)}`,
      appName: schema,
      adminUrl: postgresUrl,
      async drop() {
        await onServer(postgresUrl, `drop schema ${schema} cascade`);
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'souk-bench-'));
  const file = join(dir, 'souk.db');
  return {
    dialect: 'sqlite',
    url: `sqlite:${file}`,
    location: file,
    appName: undefined,
    adminUrl: undefined,
    async drop() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
