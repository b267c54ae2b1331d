/**
 * Disk full (docs/hardening.md): with the SQLite file on a small tmpfs that fills up, writes get
 * 503 shape B SERVICE_UNAVAILABLE, reads (settings, users, listings) still work, the process stays
 * up, and once space is freed it serves writes again without a restart. A write answered 503 left
 * nothing behind; every write answered 200 is there; PRAGMA integrity_check is ok.
 * Needs root and a kernel that lets it mount a tmpfs; skipped otherwise, with the reason.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { closeSync, mkdtempSync, openSync, rmSync, rmdirSync, unlinkSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { sql } from 'kysely';
import { signToken } from '../../src/auth/jwt.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { parseImportDocument } from '../../src/cli/import-document.js';
import { loadConfig } from '../../src/config.js';
import { createSouk } from '../../src/server.js';
import { openStore } from '../../src/store/index.js';
import { TEST_POSTGRES_URL } from '../helpers/database.js';
import { SOUK_BIN, startServerProcess, type ServerProcess } from '../helpers/processes.js';
import { PATHS } from '../helpers/souk.js';
import { LISTINGS, marketplace, SITE_URL, USERS } from '../helpers/fixtures.js';

const run = promisify(execFile);
const SECRETS = {
  API_KEY: 'disk-full-test-api-key-0123456789',
  JWT_SECRET: 'disk-full-test-jwt-secret-0123456789',
  TOKEN_MAC_KEY: 'disk-full-test-mac-key-0123456789',
};
const UNAVAILABLE = {
  status: 'error',
  error: 'SERVICE_UNAVAILABLE',
  code: '503',
  error_message: 'The service is temporarily unavailable. Please try again shortly.',
};

/** Mounts a 4 MiB tmpfs, or says why it cannot. */
function mountSmallFilesystem(): { dir: string; unmount(): void } | string {
  if (process.platform !== 'linux') return `needs Linux to mount a tmpfs (this is ${process.platform})`;
  const dir = mkdtempSync(join(tmpdir(), 'souk-disk-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=4m,mode=0700', 'tmpfs', dir], { stdio: 'pipe' });
  } catch (err) {
    rmdirSync(dir);
    const stderr = String((err as { stderr?: Buffer }).stderr ?? '').trim();
    return `cannot mount a 4 MiB tmpfs to fill up (mount -t tmpfs: ${stderr || (err as Error).message}); needs root with CAP_SYS_ADMIN`;
  }
  return {
    dir,
    unmount() {
      try {
        execFileSync('umount', [dir], { stdio: 'pipe' });
      } catch {
        execFileSync('umount', ['-l', dir], { stdio: 'pipe' });
      }
      rmdirSync(dir);
    },
  };
}

/** Writes files until the filesystem refuses another byte. */
function fillUp(path: string): number {
  const fd = openSync(path, 'w');
  let written = 0;
  try {
    for (const size of [64 * 1024, 4096, 512, 1]) {
      const chunk = Buffer.alloc(size, 0x5a);
      for (;;) {
        try {
          written += writeSync(fd, chunk);
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code === 'ENOSPC') break;
          throw err;
        }
      }
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

const skip = TEST_POSTGRES_URL ? 'SQLite only: on PostgreSQL the disk belongs to the database server' : false;

describe('disk full', { skip }, () => {
  it('writes get 503, reads go on, the process stays up and writes again once space is freed', async (ctx) => {
    const mounted = mountSmallFilesystem();
    if (typeof mounted === 'string') {
      if (process.env.CI === 'true') throw new Error(mounted);
      ctx.skip(mounted);
      return;
    }
    let server: ServerProcess | undefined;
    // The server must be gone before the filesystem holding its database can be unmounted.
    ctx.after(async () => {
      await server?.stop('SIGKILL');
      mounted.unmount();
    });
    const url = `sqlite:${join(mounted.dir, 'souk.db')}`;
    const souk = await createSouk(loadConfig({ DATABASE_URL: url, SITE_URL, LOG_LEVEL: 'silent', ...SECRETS }));
    const parsed = parseImportDocument(marketplace());
    assert.ok(parsed.ok);
    await importCatalog(souk.store, parsed.catalog);
    await souk.close();

    server = await startServerProcess({ DATABASE_URL: url, SITE_URL, RATE_LIMIT_PER_USER: '0', ...SECRETS });
    const base = server.base;
    const headers = (user: number) => ({
      'x-api-key': SECRETS.API_KEY,
      authorization: `Bearer ${signToken({ jwtSecret: SECRETS.JWT_SECRET, tokenMacKey: SECRETS.TOKEN_MAC_KEY }, user, `u${user}`, 3600)}`,
      'content-type': 'application/json',
    });
    const call = async (path: string, user: number, body: unknown) => {
      const res = await fetch(base + path, { method: 'POST', headers: headers(user), body: JSON.stringify(body) });
      return { status: res.status, retryAfter: res.headers.get('retry-after'), body: (await res.json()) as Record<string, unknown> };
    };
    assert.equal((await call(PATHS.toggle, USERS.amina, { listing_id: LISTINGS.bike })).status, 200);

    // Fill the filesystem, then free 96 KiB: the first writes fit, the next ones do not.
    const reserve = join(mounted.dir, 'reserve');
    const reserveFd = openSync(reserve, 'w');
    writeSync(reserveFd, Buffer.alloc(96 * 1024, 0x5a));
    closeSync(reserveFd);
    const filler = join(mounted.dir, 'filler');
    fillUp(filler);
    unlinkSync(reserve);

    const stored: string[] = [];
    const refused: string[] = [];
    let refusedInARow = 0;
    for (let i = 0; i < 400 && refusedInARow < 5; i++) {
      const text = `message ${i} ${'x'.repeat(2000)}`;
      const res = await call(PATHS.start, USERS.sara, { listing_id: LISTINGS.bike, text });
      if (res.status === 200) {
        stored.push(text);
        refusedInARow = 0;
      } else {
        assert.equal(res.status, 503, JSON.stringify(res.body));
        assert.deepEqual(res.body, UNAVAILABLE);
        assert.equal(res.retryAfter, '1');
        refused.push(text);
        refusedInARow++;
      }
    }
    ctx.diagnostic(`on the full disk: ${stored.length} messages stored, then ${refused.length} refused with 503`);
    assert.ok(refusedInARow >= 5, 'writes are refused once the disk is full');
    // A smaller write may still fit in WAL space the refused ones had claimed: toggles are refused
    // too once that is used up, and the ones answered 200 are followed like any other.
    let favourites: number[] = [];
    let toggleRefused = false;
    for (let i = 0; i < 400 && !toggleRefused; i++) {
      const toggle = await call(PATHS.toggle, USERS.sara, { listing_id: i % 2 ? LISTINGS.table : LISTINGS.draft });
      if (toggle.status === 200) {
        favourites = toggle.body as unknown as number[];
        continue;
      }
      assert.equal(toggle.status, 503, JSON.stringify(toggle.body));
      assert.deepEqual(toggle.body, UNAVAILABLE);
      toggleRefused = true;
    }
    assert.ok(toggleRefused, 'toggles are refused once the disk is full');

    // Reads still work: settings (the CLI and the server's auth), users, listings.
    const cli = await run(process.execPath, [SOUK_BIN, 'settings', 'get', 'rest_api'], { env: { ...process.env, DATABASE_URL: url } });
    assert.equal(cli.stdout.trim(), 'true');
    const badKey = await fetch(base + PATHS.toggle, {
      method: 'POST',
      headers: { ...headers(USERS.amina), 'x-api-key': 'wrong' },
      body: '{"listing_id":101}',
    });
    assert.equal(badKey.status, 401);
    assert.equal((await call(PATHS.toggle, USERS.disabled, { listing_id: LISTINGS.bike })).status, 403);
    assert.deepEqual((await call(PATHS.toggle, USERS.amina, { listing_id: 999 })).body, {
      status: 'error',
      error: 'BADREQUEST',
      code: '400',
      error_message: 'Listing not found.',
    });
    assert.equal(server.child.exitCode, null, 'the process is still up');

    // Space is freed: writes are served again, without a restart.
    rmSync(filler);
    let again = await call(PATHS.start, USERS.sara, { listing_id: LISTINGS.bike, text: 'after the disk was freed' });
    for (let i = 0; i < 50 && again.status !== 200; i++) {
      await new Promise((r) => setTimeout(r, 100));
      again = await call(PATHS.start, USERS.sara, { listing_id: LISTINGS.bike, text: 'after the disk was freed' });
    }
    assert.equal(again.status, 200);
    stored.push('after the disk was freed');
    const toggled = await call(PATHS.toggle, USERS.sara, { listing_id: LISTINGS.bike });
    assert.equal(toggled.status, 200);
    assert.deepEqual(toggled.body, [...favourites, LISTINGS.bike], 'the toggles answered 200 on the full disk are all there');

    const store = openStore(url, loadConfig({ DATABASE_URL: url }).db);
    try {
      assert.deepEqual((await sql<{ integrity_check: string }>`pragma integrity_check`.execute(store.db)).rows, [
        { integrity_check: 'ok' },
      ]);
      const messages = await store.db.selectFrom('messages').select(['id', 'message', 'con_id']).orderBy('id').execute();
      assert.deepEqual(
        messages.map((m) => m.message),
        stored,
        'exactly the writes answered 200',
      );
      const conversations = await store.db.selectFrom('conversations').selectAll().execute();
      assert.equal(conversations.length, 1);
      assert.equal(conversations[0]!.last_message_id, messages.at(-1)!.id);
    } finally {
      await store.close();
    }
    assert.equal(await server.stop('SIGTERM'), 0);
  });
});
