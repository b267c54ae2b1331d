/**
 * Graceful shutdown (docs/hardening.md): on SIGTERM a `souk serve` process stops accepting
 * connections, answers every request already in flight, closes the database and exits 0; past
 * SHUTDOWN_TIMEOUT_MS it cuts what is left and exits 1.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { signToken } from '../../src/auth/jwt.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { parseImportDocument } from '../../src/cli/import-document.js';
import { loadConfig } from '../../src/config.js';
import { createSouk } from '../../src/server.js';
import { sqlitePath } from '../../src/store/sqlite/connection.js';
import { openStore } from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from '../helpers/database.js';
import { startServerProcess, type ServerProcess } from '../helpers/processes.js';
import { parseResponse, type RawResponse } from '../helpers/raw-http.js';
import { PATHS } from '../helpers/souk.js';
import { LISTINGS, marketplace, SITE_URL, USERS } from '../helpers/fixtures.js';

const SECRETS = {
  API_KEY: 'shutdown-test-api-key-0123456789',
  JWT_SECRET: 'shutdown-test-jwt-secret-0123456789',
  TOKEN_MAC_KEY: 'shutdown-test-mac-key-0123456789',
};
const auth = (user: number) => ({
  'x-api-key': SECRETS.API_KEY,
  authorization: `Bearer ${signToken({ jwtSecret: SECRETS.JWT_SECRET, tokenMacKey: SECRETS.TOKEN_MAC_KEY }, user, `u${user}`, 3600)}`,
});

async function prepared(): Promise<TestDatabase> {
  const database = await freshDatabase();
  const souk = await createSouk(loadConfig({ DATABASE_URL: database.url, SITE_URL, LOG_LEVEL: 'silent', ...SECRETS }));
  try {
    const parsed = parseImportDocument(marketplace());
    if (!parsed.ok) throw new Error(parsed.problem);
    await importCatalog(souk.store, parsed.catalog);
  } finally {
    await souk.close();
  }
  return database;
}

async function serve(database: TestDatabase, env: Record<string, string> = {}): Promise<ServerProcess & { port: number }> {
  const server = await startServerProcess({
    DATABASE_URL: database.url,
    SITE_URL,
    LOG_LEVEL: 'info',
    RATE_LIMIT_PER_USER: '0',
    REQUEST_TIMEOUT_MS: '120000',
    HEADERS_TIMEOUT_MS: '60000',
    ...SECRETS,
    ...env,
  });
  return { ...server, port: Number(new URL(server.base).port) };
}

/** A request whose head and first part of the body are sent now, and the rest when finish() is called. */
interface HeldRequest {
  finish(): void;
  reply: Promise<{ response: RawResponse | undefined; closedByServer: boolean }>;
}

function hold(port: number, path: string, headers: Record<string, string>, body: unknown): HeldRequest {
  const payload = Buffer.from(JSON.stringify(body));
  const head =
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n` +
    Object.entries(headers)
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('') +
    '\r\n';
  const socket: Socket = connect(port, '127.0.0.1');
  const chunks: Buffer[] = [];
  socket.on('data', (d) => chunks.push(d));
  socket.on('error', () => {});
  socket.write(Buffer.concat([Buffer.from(head), payload.subarray(0, 5)]));
  const reply = new Promise<{ response: RawResponse | undefined; closedByServer: boolean }>((resolve) => {
    socket.on('close', () => resolve({ response: parseResponse(Buffer.concat(chunks)), closedByServer: true }));
  });
  return { finish: () => socket.write(payload.subarray(5)), reply };
}

function post(
  agent: Agent | false,
  base: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: string }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      base + path,
      { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => (res.complete ? resolve({ status: res.statusCode ?? 0, body: text }) : reject(new Error('reply cut short'))));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

async function waitFor(what: string, check: () => boolean | Promise<boolean>, ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => (socket.destroy(), resolve(false)));
    socket.once('error', (err: NodeJS.ErrnoException) => resolve(err.code === 'ECONNREFUSED'));
  });
}

function logLines(server: ServerProcess): Record<string, unknown>[] {
  return server
    .output()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

function exitCode(server: ServerProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (server.child.exitCode !== null || server.child.signalCode !== null) resolve(server.child.exitCode);
    else server.child.once('exit', (code) => resolve(code));
  });
}

describe('graceful shutdown', () => {
  it('SIGTERM: no new connections, every request in flight answered 200, database closed, exit 0', async (ctx) => {
    const database = await prepared();
    ctx.after(() => database.drop());
    const server = await serve(database);

    // Requests in flight in two ways: bodies still being sent, and a burst of complete requests.
    const heldToggles: [number, number][] = [
      [USERS.amina, LISTINGS.bike],
      [USERS.amina, LISTINGS.table],
      [USERS.youssef, LISTINGS.table],
      [USERS.sara, LISTINGS.bike],
      [USERS.sara, LISTINGS.draft],
      [USERS.youssef, LISTINGS.aminasOwn],
    ];
    const held = [
      ...heldToggles.map(([user, listing]) => hold(server.port, PATHS.toggle, auth(user), { listing_id: listing })),
      ...[1, 2, 3, 4].map((i) => hold(server.port, PATHS.start, auth(USERS.sara), { listing_id: LISTINGS.bike, text: `held ${i}` })),
    ];
    // Each on its own connection, all sent now (none waits in the client for a free socket).
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });
    const burst = Array.from({ length: 40 }, (_, i) =>
      post(agent, server.base, PATHS.start, auth(USERS.youssef), { listing_id: LISTINGS.table, text: `burst ${i}` }),
    );
    // Once a request on a later connection is answered, the earlier connections' heads have been read.
    const probe = await post(false, server.base, PATHS.toggle, auth(USERS.youssef), { listing_id: LISTINGS.bike });
    assert.equal(probe.status, 200);

    server.child.kill('SIGTERM');
    await waitFor('the shutdown log line', () => logLines(server).some((l) => String(l.msg).startsWith('shutdown: received SIGTERM')));
    const begun = logLines(server).find((l) => String(l.msg).startsWith('shutdown: received SIGTERM'))!;
    assert.ok(Number(begun.inFlight) >= held.length, `in flight at SIGTERM: ${String(begun.inFlight)}`);

    await waitFor('new connections to be refused', () => refused(server.port));
    assert.equal(server.child.exitCode, null, 'still running: requests are in flight');

    for (const h of held) h.finish();
    const replies = await Promise.all(held.map((h) => h.reply));
    for (const [i, r] of replies.entries()) {
      assert.equal(r.response?.status, 200, `held request ${i}: ${r.response?.body}`);
      assert.equal(r.response?.headers.connection, 'close');
    }
    const burstReplies = await Promise.all(burst);
    assert.deepEqual(
      burstReplies.map((r) => r.status),
      Array(burst.length).fill(200),
    );
    agent.destroy();

    assert.equal(await exitCode(server), 0);
    const closed = logLines(server).find((l) => l.msg === 'shutdown: server and database closed');
    assert.equal(closed?.forced, false);
    if (database.dialect === 'sqlite') {
      assert.equal(existsSync(`${sqlitePath(database.url)}-wal`), false, 'the WAL was checkpointed and removed on close');
    }

    // What the replies said is what the database holds.
    const store = openStore(database.url, loadConfig({ DATABASE_URL: database.url }).db);
    try {
      const favourites = await store.db.selectFrom('favourites').select(['user_id', 'listing_id']).execute();
      const pairs = new Set(favourites.map((f) => `${f.user_id}:${f.listing_id}`));
      for (const [user, listing] of heldToggles)
        assert.ok(pairs.has(`${user}:${listing}`), `toggle ${user}:${listing} answered 200 is stored`);
      const messages = await store.db.selectFrom('messages').select('message').execute();
      assert.equal(messages.length, 4 + burst.length);
    } finally {
      await store.close();
    }
  });

  it('idle keep-alive connections do not hold the shutdown up', async (ctx) => {
    const database = await prepared();
    ctx.after(() => database.drop());
    const server = await serve(database, { KEEP_ALIVE_TIMEOUT_MS: '600000', SHUTDOWN_TIMEOUT_MS: '60000' });
    const agent = new Agent({ keepAlive: true, maxSockets: 8 });
    const replies = await Promise.all(
      Array.from({ length: 8 }, () => post(agent, server.base, PATHS.toggle, auth(USERS.amina), { listing_id: LISTINGS.bike })),
    );
    assert.deepEqual(
      replies.map((r) => r.status),
      Array(8).fill(200),
    );
    const started = Date.now();
    server.child.kill('SIGTERM');
    assert.equal(await exitCode(server), 0);
    assert.ok(Date.now() - started < 30_000, 'well before the 60 s deadline and the 600 s keep-alive');
    agent.destroy();
  });

  it('past SHUTDOWN_TIMEOUT_MS the requests still in flight are cut and the process exits 1', async (ctx) => {
    const database = await prepared();
    ctx.after(() => database.drop());
    const server = await serve(database, { SHUTDOWN_TIMEOUT_MS: '1000' });
    const stuck = hold(server.port, PATHS.toggle, auth(USERS.amina), { listing_id: LISTINGS.bike });
    assert.equal((await post(false, server.base, PATHS.toggle, auth(USERS.sara), { listing_id: LISTINGS.bike })).status, 200);
    server.child.kill('SIGTERM');
    assert.equal(await exitCode(server), 1);
    const reply = await stuck.reply;
    assert.equal(reply.response, undefined, 'the stuck request was cut, not answered');
    assert.ok(logLines(server).some((l) => String(l.msg).includes('deadline of 1000 ms passed')));
    const store = openStore(database.url, loadConfig({ DATABASE_URL: database.url }).db);
    try {
      const favourites = await store.db.selectFrom('favourites').select(['user_id', 'listing_id']).execute();
      assert.deepEqual(favourites, [{ user_id: USERS.sara, listing_id: LISTINGS.bike }]);
    } finally {
      await store.close();
    }
  });
});
