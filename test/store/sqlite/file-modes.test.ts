/**
 * The SQLite database holds the API key and the JWT secret (issue 17, M4): Souk creates its folder
 * 0700 and its files 0600, and at start-up names, once, a folder or file that group or others can
 * read. SQLite only, whatever TEST_DATABASE_URL says; POSIX modes, so not on Windows.
 * `souk serve` runs from dist/: `npm run build` before running this file alone.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../../../src/config.js';
import { createSouk } from '../../../src/server.js';
import { SITE_URL } from '../../helpers/fixtures.js';
import { SOUK_BIN, SOUK_READY, startProcess } from '../../../tools/processes.js';

const POSIX = process.platform !== 'win32';
const mode = (path: string) => `0${(statSync(path).mode & 0o777).toString(8)}`;

/**
 * The default database path (./data/souk.db, whose folder Souk creates; it creates no other) under a
 * scratch folder removed afterwards, where ./data does not exist yet.
 */
function freshPath(t: TestContext): { scratch: string; folder: string; db: string } {
  const scratch = mkdtempSync(join(tmpdir(), 'souk-modes-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const folder = join(scratch, 'data');
  return { scratch, folder, db: join(folder, 'souk.db') };
}

const DEFAULT_URL = 'sqlite:./data/souk.db';

function assertPrivate(folder: string, db: string): void {
  assert.equal(mode(folder), '0700', folder);
  for (const file of [db, `${db}-wal`, `${db}-shm`]) {
    assert.ok(existsSync(file), file);
    assert.equal(mode(file), '0600', file);
  }
}

/** Starts Souk in this process with its log lines collected; the caller closes it. */
async function startLogged(url: string) {
  const lines: string[] = [];
  const config = loadConfig({ DATABASE_URL: url, SITE_URL, LOG_LEVEL: 'info' });
  const souk = await createSouk(config, { logDestination: { write: (line) => lines.push(line) } });
  const warnings = () => lines.map((l) => JSON.parse(l) as { level: number; msg: string }).filter((l) => l.level === 40);
  return { souk, lines, warnings };
}

describe('SQLite files on disk', { skip: !POSIX && 'POSIX file modes' }, () => {
  it('souk serve creates the folder 0700 and the database, -wal and -shm 0600, and warns of nothing', async (t) => {
    const { scratch, folder, db } = freshPath(t);
    const server = await startProcess('souk serve', {
      args: [SOUK_BIN, 'serve'],
      env: { DATABASE_URL: DEFAULT_URL, SITE_URL, LOG_LEVEL: 'warn' },
      ready: SOUK_READY,
      cwd: scratch,
    });
    t.after(() => server.stop('SIGKILL'));
    assertPrivate(folder, db);
    assert.ok(!/can read/.test(server.output()), server.output());
    assert.equal(await server.stop(), 0);
  });

  it('the modes do not depend on the umask of the process that opens the database', async (t) => {
    const { scratch, folder, db } = freshPath(t);
    const previous = process.umask(0);
    t.after(() => process.umask(previous));
    const cwd = process.cwd();
    process.chdir(scratch);
    t.after(() => process.chdir(cwd));
    const { souk, warnings } = await startLogged(DEFAULT_URL);
    t.after(() => souk.close());
    assertPrivate(folder, db);
    assert.deepEqual(warnings(), []);
  });

  it('a database file and folder others can read are named once in a warning with their modes, and no secret', async (t) => {
    const { folder, db } = freshPath(t);
    mkdirSync(folder, { mode: 0o700 });
    const first = await startLogged(`sqlite:${db}`);
    await first.souk.close();
    chmodSync(folder, 0o755);
    chmodSync(db, 0o644);

    const { souk, lines, warnings } = await startLogged(`sqlite:${db}`);
    t.after(() => souk.close());
    const { apiKey, jwtSecret } = souk.settings.current();
    assert.equal(warnings().length, 1, lines.join(''));
    const { msg } = warnings()[0]!;
    assert.ok(msg.includes(`${folder} (0755)`), msg);
    assert.ok(msg.includes(`${db} (0644)`), msg);
    // SQLite gives the -wal and -shm it creates the database file's mode: named too.
    assert.ok(msg.includes(`${db}-wal (0644)`), msg);
    for (const secret of [apiKey, jwtSecret]) assert.ok(!lines.join('').includes(secret));
  });
});
