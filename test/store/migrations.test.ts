/**
 * Each database's one list of migrations (`src/store/<db>/migrations/index.ts`) against the rule of
 * where a migration's file lives (docs/architecture.md, "Migrations"): every list in order, every
 * migration file in its database's list, and the names a migrated database records those of its list.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import type { Migrations } from '../../src/store/common/migrate.js';
import { openStore } from '../../src/store/index.js';
import { tables } from '../../src/store/mysql/context.js';
import { mysqlMigrations } from '../../src/store/mysql/migrations/index.js';
import { POSTGRES_MIGRATIONS } from '../../src/store/postgres/migrations/index.js';
import { SQLITE_MIGRATIONS } from '../../src/store/sqlite/migrations/index.js';

const STORE = fileURLToPath(new URL('../../src/store/', import.meta.url));

const LISTS: Record<string, Migrations> = {
  sqlite: SQLITE_MIGRATIONS,
  postgres: POSTGRES_MIGRATIONS,
  mysql: mysqlMigrations(tables('wp_')),
};

/** `store/common/migrations/` holds what SQLite and PostgreSQL share; `store/<db>/migrations/` one database's own. */
const LISTS_OF_FOLDER: Record<string, string[]> = { common: ['sqlite', 'postgres'] };

/** The migrations folders under src/store/, each with the names of its migration files (NNN-name.ts). */
function migrationFiles(): Map<string, string[]> {
  const folders = new Map<string, string[]>();
  for (const entry of readdirSync(STORE, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const dir = join(STORE, entry.name, 'migrations');
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    folders.set(
      entry.name,
      names.filter((n) => /^\d{3}-/.test(n)).map((n) => n.replace(/\.ts$/, '')),
    );
  }
  return folders;
}

describe('migrations: one ordered list per database', () => {
  for (const [db, list] of Object.entries(LISTS)) {
    it(`${db}: names NNN-name, in strictly increasing order, one per number`, () => {
      const names = Object.keys(list);
      assert.ok(names.length > 0);
      let previous = '';
      let previousNumber = 0;
      for (const name of names) {
        const match = /^(\d{3})-[a-z0-9]+(?:-[a-z0-9]+)*$/.exec(name);
        assert.ok(match, `${db}: ${name} is not NNN-name`);
        const number = Number(match[1]);
        assert.ok(name > previous && number > previousNumber, `${db}: ${name} comes after ${previous}`);
        previous = name;
        previousNumber = number;
      }
    });
  }

  it('every migration file under store/*/migrations/ is in its database’s list', () => {
    const folders = migrationFiles();
    assert.ok(folders.has('common') && folders.has('sqlite') && folders.has('mysql'), [...folders.keys()].join());
    for (const [folder, files] of folders) {
      const dbs = LISTS_OF_FOLDER[folder] ?? [folder];
      for (const db of dbs) {
        const list = LISTS[db];
        assert.ok(list, `store/${folder}/migrations/ belongs to no list this test knows (${db})`);
        for (const file of files) assert.ok(file in list, `store/${folder}/migrations/${file}.ts is not in ${db}'s list`);
      }
    }
  });

  it('every name in a list is a migration file', () => {
    const files = new Set([...migrationFiles().values()].flat());
    for (const [db, list] of Object.entries(LISTS)) {
      for (const name of Object.keys(list)) assert.ok(files.has(name), `${db}'s ${name} has no file NNN-name.ts`);
    }
  });

  it('a migrated SQLite records the names of its list, and PostgreSQL’s list has the same history', async () => {
    const store = openStore('sqlite::memory:', { poolSize: 1, statementTimeoutMs: 2000, connectTimeoutMs: 2000 });
    try {
      await store.migrate();
      const { rows } = await sql<{ name: string }>`select name from souk_migrations order by timestamp, name`.execute(store.db);
      const recorded = rows.map((r) => r.name);
      assert.deepEqual(Object.keys(SQLITE_MIGRATIONS), recorded);
      assert.deepEqual(Object.keys(POSTGRES_MIGRATIONS), recorded);
    } finally {
      await store.close();
    }
  });
});
