/**
 * A fresh, empty database for each test: an SQLite file in a temp folder, or, when
 * TEST_DATABASE_URL names a PostgreSQL server, a new schema on it (dropped afterwards).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';

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

/** `postgresUrl`: a PostgreSQL server to make the schema on, whatever TEST_DATABASE_URL says; `null`: SQLite. */
export async function freshDatabase(postgresUrl: string | null | undefined = TEST_POSTGRES_URL): Promise<TestDatabase> {
  if (postgresUrl) {
    const schema = `souk_test_${randomBytes(6).toString('hex')}`;
    const admin = new pg.Client({ connectionString: postgresUrl });
    await admin.connect();
    await admin.query(`create schema ${schema}`);
    await admin.end();
    return {
      url: withSearchPath(postgresUrl, schema),
      dialect: 'postgres',
      async drop() {
        const c = new pg.Client({ connectionString: postgresUrl });
        await c.connect();
        await c.query(`drop schema ${schema} cascade`);
        await c.end();
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
