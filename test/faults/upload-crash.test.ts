/**
 * A `souk serve` killed with SIGKILL in the middle of uploads (docs/files.md): files are stored
 * before their message commits, so after a restart, and once the sweep has run, every message's
 * files exist and every stored file belongs to a message; nothing half-written is left behind.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { mkdtemp, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { signToken } from '../../src/auth/jwt.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { parseImportDocument } from '../../src/cli/import-document.js';
import { loadConfig } from '../../src/config.js';
import { createSouk } from '../../src/server.js';
import { openStore } from '../../src/store/index.js';
import { freshDatabase } from '../helpers/database.js';
import { startServerProcess } from '../helpers/processes.js';
import { marketplace, SITE_URL, USERS, LISTINGS } from '../helpers/fixtures.js';
import { until } from '../helpers/until.js';

const SECRETS = {
  API_KEY: 'upload-crash-api-key-0123456789',
  JWT_SECRET: 'upload-crash-jwt-0123456789',
  TOKEN_MAC_KEY: 'upload-crash-mac-0123456789',
};
const START = '/wp-json/rtcl/v1/my/chat/conversation';

async function filesUnder(root: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(join(root, prefix), { withFileTypes: true }).catch(() => [])) {
    const rel = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) out.push(...(await filesUnder(root, rel)));
    else out.push(rel);
  }
  return out;
}

/** A multipart body with one distinct image and one text field. */
async function body(i: number): Promise<{ bytes: Buffer; type: string }> {
  const image = await sharp({ create: { width: 600 + i, height: 400, channels: 3, background: { r: i % 256, g: 90, b: 40 } } })
    .jpeg()
    .toBuffer();
  const boundary = `----souk${i}`;
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="listing_id"\r\n\r\n${LISTINGS.bike}\r\n--${boundary}\r\nContent-Disposition: form-data; name="text"\r\n\r\nphoto ${i}\r\n--${boundary}\r\nContent-Disposition: form-data; name="files[]"; filename="p${i}.jpg"\r\nContent-Type: image/jpeg\r\n\r\n`;
  return {
    bytes: Buffer.concat([Buffer.from(head), image, Buffer.from(`\r\n--${boundary}--\r\n`)]),
    type: `multipart/form-data; boundary=${boundary}`,
  };
}

/** Sends the body; `stallAfter`: writes that many bytes and never the rest (an upload in progress). */
function send(base: string, token: string, b: { bytes: Buffer; type: string }, stallAfter?: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request(`${base}${START}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'x-api-key': SECRETS.API_KEY, 'content-type': b.type, 'content-length': b.bytes.length },
    });
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode));
    });
    req.on('error', () => resolve(undefined));
    if (stallAfter === undefined) req.end(b.bytes);
    else req.write(b.bytes.subarray(0, stallAfter));
  });
}

describe('SIGKILL in the middle of uploads', () => {
  it('leaves neither a message without its file nor a file without its message after a restart', async () => {
    const database = await freshDatabase();
    const dir = await mkdtemp(join(tmpdir(), 'souk-upload-crash-'));
    const env = { DATABASE_URL: database.url, SITE_URL, FILES_DIR: dir, ...SECRETS };
    const setup = await createSouk(loadConfig({ ...env, LOG_LEVEL: 'silent' }));
    const parsed = parseImportDocument(marketplace());
    if (!parsed.ok) throw new Error(parsed.problem);
    await importCatalog(setup.store, parsed.catalog);
    await setup.close();

    const token = signToken({ jwtSecret: SECRETS.JWT_SECRET, tokenMacKey: SECRETS.TOKEN_MAC_KEY }, USERS.amina, 'amina', 3600);
    const server = await startServerProcess({ ...env, FILES_SWEEP_INTERVAL_S: '0' });
    const bodies = await Promise.all(Array.from({ length: 24 }, (_, i) => body(i)));
    // Some uploads stall half-way (their temporary files exist), the others run at full speed.
    const stalled = bodies.slice(0, 4).map((b) => send(server.base, token, b, Math.floor(b.bytes.length / 2)));
    const answered: Promise<number | undefined>[] = [];
    for (const b of bodies.slice(4)) answered.push(send(server.base, token, b));
    await until(async () => (await filesUnder(dir)).some((f) => f.startsWith('chat/')), 15_000);
    await new Promise((resolve) => setTimeout(resolve, 30));
    await server.stop('SIGKILL');
    await Promise.all([...stalled, ...answered]);
    assert.ok(
      (await filesUnder(dir)).some((f) => f.startsWith('.uploads/')),
      'the stalled uploads left their temporary files',
    );

    // After the restart the sweep runs at once and spares nothing older than a second.
    const restarted = await startServerProcess({ ...env, FILES_SWEEP_INTERVAL_S: '1', FILES_SWEEP_GRACE_S: '1' });
    const store = openStore(database.url, { poolSize: 2, statementTimeoutMs: 5000, connectTimeoutMs: 3000 });
    try {
      const named = async () => {
        const rows = await store.db.selectFrom('messages').select('attachments').where('attachments', 'is not', null).execute();
        return rows.flatMap((r) => JSON.parse(r.attachments!) as { url: string; thumbnail?: string }[]);
      };
      const keyOf = (url: string) => url.slice(`${SITE_URL}/files/`.length);
      await until(async () => {
        const files = new Set(await filesUnder(dir));
        const wanted = (await named()).flatMap((f) => [keyOf(f.url), ...(f.thumbnail ? [keyOf(f.thumbnail)] : [])]);
        return files.size === new Set(wanted).size && wanted.every((k) => files.has(k));
      }, 20_000);
      const attachments = await named();
      for (const file of attachments) {
        const res = await fetch(`${restarted.base}/files/${keyOf(file.url)}`);
        assert.equal(res.status, 200, `the file of a committed message is served: ${file.url}`);
        await res.arrayBuffer();
      }
      assert.ok(
        (await filesUnder(dir)).every((f) => f.startsWith('chat/')),
        'no temporary file left',
      );
    } finally {
      await store.close();
      await restarted.stop('SIGKILL');
      await database.drop();
    }
  });
});
