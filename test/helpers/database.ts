/**
 * A fresh, empty database for each test: an SQLite file in a temp folder, or, when
 * TEST_DATABASE_URL names a PostgreSQL server, a new schema on it (dropped afterwards).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { onServer } from '../../tools/postgres.js';

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
