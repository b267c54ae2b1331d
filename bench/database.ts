/**
 * A fresh database for one bench run: an SQLite file in a temp folder, or a new schema in the
 * PostgreSQL database named by DATABASE_URL (search_path set through the connection options).
 * PostgreSQL connections carry an application_name, so the bench can find Souk's backends
 * in pg_stat_activity and measure the database's CPU time.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface BenchDatabase {
  dialect: 'sqlite' | 'postgres';
  /** The DATABASE_URL Souk and the bench use. */
  url: string;
  /** Where the data lives, for --keep. */
  location: string;
  /** PostgreSQL: the application_name of Souk's connections. */
  appName: string | undefined;
  /** PostgreSQL: the server URL without the schema, for admin queries. */
  adminUrl: string | undefined;
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

export async function freshBenchDatabase(postgresUrl: string | undefined): Promise<BenchDatabase> {
  const tag = randomBytes(4).toString('hex');
  if (postgresUrl) {
    const schema = `souk_bench_${tag}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    try {
      await admin.query(`create schema ${schema}`);
    } finally {
      await admin.end();
    }
    return {
      dialect: 'postgres',
      url: withParams(postgresUrl, { options: `-c search_path=${schema}`, application_name: schema }),
      location: `schema ${schema} in ${redact(postgresUrl)}`,
      appName: schema,
      adminUrl: postgresUrl,
      async drop() {
        const c = new pg.Client({ connectionString: postgresUrl });
        await c.connect();
        try {
          await c.query(`drop schema ${schema} cascade`);
        } finally {
          await c.end();
        }
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
