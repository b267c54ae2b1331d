/**
 * Crash safety: real `souk serve` processes take toggles and conversation starts at full speed and
 * are killed with SIGKILL at a random moment, five times over one database. After each kill:
 * - every write answered 200 is in the database;
 * - nothing half-done is visible: each conversation has its messages and last_message_id points at
 *   its newest one; no favourite is listed twice; each favourite list is the one its requests imply;
 * - on SQLite, PRAGMA integrity_check is ok, foreign_key_check finds nothing and no favourite
 *   names a missing listing.
 * A request in flight at the kill may or may not have committed; the checks allow both, and only
 * where such a request could have changed the outcome.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { signToken } from '../../src/auth/jwt.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { parseImportDocument, type ImportDocument } from '../../src/cli/import-document.js';
import { loadConfig } from '../../src/config.js';
import { createSouk } from '../../src/server.js';
import { openStore, type Store } from '../../src/store/index.js';
import { freshDatabase, type TestDatabase } from '../helpers/database.js';
import { startServerProcess } from '../helpers/processes.js';
import { PATHS } from '../helpers/souk.js';
import { SITE_URL } from '../helpers/fixtures.js';

const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 5);
const CONCURRENCY = 24;
const USERS = 16;
const LISTINGS = Array.from({ length: 60 }, (_, i) => 201 + i);
const ownerOf = (listing: number) => ((listing - 201) % 4) + 1;
const SECRETS = {
  API_KEY: 'crash-test-api-key-0123456789',
  JWT_SECRET: 'crash-test-jwt-secret-0123456789',
  TOKEN_MAC_KEY: 'crash-test-mac-key-0123456789',
};

function dataset(): ImportDocument {
  return {
    users: Array.from({ length: USERS }, (_, i) => ({ id: i + 1, login: `user${i + 1}`, email: `user${i + 1}@example.com` })),
    listings: LISTINGS.map((id) => ({ id, owner_id: ownerOf(id), title: `Listing ${id}`, slug: `listing-${id}`, price: '10' })),
  };
}

async function prepare(database: TestDatabase): Promise<void> {
  const souk = await createSouk(loadConfig({ DATABASE_URL: database.url, SITE_URL, LOG_LEVEL: 'silent', ...SECRETS }));
  try {
    const parsed = parseImportDocument(dataset());
    if (!parsed.ok) throw new Error(parsed.problem);
    const imported = await importCatalog(souk.store, parsed.catalog);
    if (!imported.ok) throw new Error(imported.problem);
  } finally {
    await souk.close();
  }
}

interface Sent {
  user: number;
  op: 'toggle' | 'start';
  listing: number;
  text?: string;
  /** Set when a whole reply arrived. */
  status?: number;
  body?: unknown;
  error?: string;
}

interface State {
  favourites: Map<number, number[]>;
}

async function readState(store: Store): Promise<State> {
  const rows = await store.db.selectFrom('favourites').select(['user_id', 'listing_id']).orderBy('id').execute();
  const favourites = new Map<number, number[]>();
  for (const row of rows) favourites.set(row.user_id, [...(favourites.get(row.user_id) ?? []), row.listing_id]);
  return { favourites };
}

function post(
  agent: Agent,
  base: string,
  path: string,
  headers: Record<string, string>,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      base + path,
      { method: 'POST', agent, headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          if (!res.complete) return reject(new Error('reply cut short'));
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
          } catch (err) {
            reject(err);
          }
        });
        res.on('error', reject);
        res.on('aborted', () => reject(new Error('aborted')));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

/** Drives traffic until the server dies; returns every request sent with its outcome. */
async function drive(base: string, round: number, killed: () => boolean, onAnswer: () => void): Promise<Sent[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const headersFor = new Map<number, Record<string, string>>();
  for (let u = 1; u <= USERS; u++) {
    headersFor.set(u, {
      'x-api-key': SECRETS.API_KEY,
      authorization: `Bearer ${signToken({ jwtSecret: SECRETS.JWT_SECRET, tokenMacKey: SECRETS.TOKEN_MAC_KEY }, u, `user${u}`, 3600)}`,
    });
  }
  const sent: Sent[] = [];
  let seq = 0;
  const worker = async () => {
    while (!killed()) {
      const user = 1 + Math.floor(Math.random() * USERS);
      const listing = LISTINGS[Math.floor(Math.random() * LISTINGS.length)]!;
      const op = Math.random() < 0.6 || ownerOf(listing) === user ? 'toggle' : 'start';
      const entry: Sent = { user, op, listing };
      sent.push(entry);
      const n = seq++;
      const body =
        op === 'toggle'
          ? { listing_id: listing }
          : { listing_id: listing, text: (entry.text = `r${round}-m${n}`), temp_id: round * 1_000_000 + n };
      try {
        const reply = await post(agent, base, op === 'toggle' ? PATHS.toggle : PATHS.start, headersFor.get(user)!, body);
        entry.status = reply.status;
        entry.body = reply.body;
        onAnswer();
      } catch (err) {
        entry.error = (err as Error).message;
        if (!killed()) await new Promise((r) => setTimeout(r, 5));
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  return sent;
}

function checkFavourites(before: State, after: State, sent: Sent[]): { exact: number; open: number } {
  const answered = new Map<string, number>();
  const unanswered = new Map<string, number>();
  const usersInFlight = new Set<number>();
  const repliesOf = new Map<number, number[][]>();
  for (const s of sent) {
    if (s.op !== 'toggle') continue;
    const key = `${s.user}:${s.listing}`;
    if (s.status === 200) {
      answered.set(key, (answered.get(key) ?? 0) + 1);
      const list = s.body as number[];
      assert.equal(new Set(list).size, list.length, `a reply lists an id twice: ${JSON.stringify(list)}`);
      repliesOf.set(s.user, [...(repliesOf.get(s.user) ?? []), list]);
    } else {
      assert.equal(s.status, undefined, `toggle answered ${s.status}: ${JSON.stringify(s.body)}`);
      unanswered.set(key, (unanswered.get(key) ?? 0) + 1);
      usersInFlight.add(s.user);
    }
  }
  let exact = 0;
  let open = 0;
  for (let user = 1; user <= USERS; user++) {
    const final = after.favourites.get(user) ?? [];
    assert.equal(new Set(final).size, final.length, `user ${user}'s favourites list an id twice`);
    for (const listing of LISTINGS) {
      const key = `${user}:${listing}`;
      if (unanswered.has(key)) {
        open++;
        continue;
      }
      // Every toggle of this pair was answered: the answered ones alone decide membership.
      const was = (before.favourites.get(user) ?? []).includes(listing);
      const flips = answered.get(key) ?? 0;
      assert.equal(
        final.includes(listing),
        flips % 2 === 1 ? !was : was,
        `user ${user} listing ${listing}: ${flips} answered toggles from ${was}`,
      );
      exact++;
    }
    // With nothing in flight for the user, the list (in its order) is the reply of its last toggle.
    const replies = repliesOf.get(user);
    if (replies && !usersInFlight.has(user)) {
      assert.ok(
        replies.some((r) => JSON.stringify(r) === JSON.stringify(final)),
        `user ${user}: ${JSON.stringify(final)} is none of the replies`,
      );
    }
  }
  return { exact, open };
}

async function checkConversations(store: Store, sent: Sent[], allTexts: Set<string>): Promise<void> {
  const db = store.db;
  const conversations = await db.selectFrom('conversations').selectAll().execute();
  const messages = await db.selectFrom('messages').selectAll().orderBy('id').execute();
  const byConversation = new Map<number, typeof messages>();
  for (const m of messages) byConversation.set(m.con_id, [...(byConversation.get(m.con_id) ?? []), m]);
  const open = new Set<string>();
  for (const c of conversations) {
    const own = byConversation.get(c.id) ?? [];
    assert.ok(own.length >= 1, `conversation ${c.id} has no message`);
    assert.equal(c.last_message_id, own.at(-1)!.id, `conversation ${c.id}: last_message_id is not its newest message`);
    assert.equal(c.recipient_id, ownerOf(c.listing_id));
    const key = `${c.listing_id}:${c.sender_id}:${c.recipient_id}`;
    assert.ok(!open.has(key), `two open conversations ${key}`);
    open.add(key);
  }
  for (const m of messages) {
    assert.ok(allTexts.has(m.message), `message ${m.id} "${m.message}" was never sent`);
    assert.ok(byConversation.has(m.con_id) && conversations.some((c) => c.id === m.con_id));
  }
  const byId = new Map(messages.map((m) => [m.id, m]));
  for (const s of sent) {
    if (s.op !== 'start') continue;
    if (s.status === undefined) continue;
    assert.equal(s.status, 200, `start answered ${s.status}: ${JSON.stringify(s.body)}`);
    const reply = s.body as {
      con_id: number;
      sender_id: number;
      listing_id: number;
      newMessage: { message_id: number; message: string; con_id: number };
    };
    const stored = byId.get(reply.newMessage.message_id);
    assert.ok(stored, `message ${reply.newMessage.message_id} answered 200 is missing`);
    assert.equal(stored.message, s.text);
    assert.equal(stored.con_id, reply.con_id);
    assert.equal(stored.source_id, s.user);
    const conversation = conversations.find((c) => c.id === reply.con_id);
    assert.ok(conversation, `conversation ${reply.con_id} answered 200 is missing`);
    assert.equal(conversation.listing_id, s.listing);
    assert.equal(conversation.sender_id, s.user);
  }
}

async function checkIntegrity(store: Store): Promise<void> {
  if (store.dialect !== 'sqlite') return;
  const integrity = await sql<{ integrity_check: string }>`pragma integrity_check`.execute(store.db);
  assert.deepEqual(integrity.rows, [{ integrity_check: 'ok' }]);
  const foreignKeys = await sql`pragma foreign_key_check`.execute(store.db);
  assert.deepEqual(foreignKeys.rows, []);
  // favourites.listing_id is kept by triggers on SQLite (migration 005), which foreign_key_check does not see.
  const orphans = await sql`select id from favourites where listing_id not in (select id from listings)`.execute(store.db);
  assert.deepEqual(orphans.rows, []);
}

/**
 * On PostgreSQL a killed server's sessions live on until the server notices; one that was committing
 * still commits. Wait until they are all gone, so the state read afterwards is final.
 */
async function waitForSessionsToEnd(database: TestDatabase, applicationName: string): Promise<void> {
  if (database.dialect !== 'postgres') return;
  const client = new pg.Client({ connectionString: database.url });
  await client.connect();
  try {
    for (let i = 0; i < 200; i++) {
      const { rows } = await client.query('select count(*)::int as n from pg_stat_activity where application_name = $1', [applicationName]);
      if (rows[0].n === 0) return;
      await new Promise((r) => setTimeout(r, 50));
    }
    throw new Error(`sessions of the killed server (${applicationName}) are still open after 10 s`);
  } finally {
    await client.end();
  }
}

function withApplicationName(database: TestDatabase, name: string): string {
  if (database.dialect !== 'postgres') return database.url;
  const url = new URL(database.url);
  url.searchParams.set('application_name', name);
  return url.toString();
}

describe('crash safety', () => {
  it(`${ROUNDS} SIGKILLs at random moments under full-speed writes lose no answered write and leave nothing half-done`, async (ctx) => {
    const database = await freshDatabase();
    ctx.after(() => database.drop());
    await prepare(database);
    const applicationName = `souk-crash-${randomBytes(4).toString('hex')}`;
    const env = { DATABASE_URL: withApplicationName(database, applicationName), SITE_URL, RATE_LIMIT_PER_USER: '0', ...SECRETS };
    const allTexts = new Set<string>();
    let state = await (async () => {
      const store = openStore(database.url, loadConfig({ DATABASE_URL: database.url }).db);
      try {
        return await readState(store);
      } finally {
        await store.close();
      }
    })();

    for (let round = 1; round <= ROUNDS; round++) {
      const server = await startServerProcess(env);
      const killAfterMs = 200 + Math.floor(Math.random() * 1300);
      let killed = false;
      let answered!: () => void;
      const firstAnswer = new Promise<void>((resolve) => (answered = resolve));
      const traffic = drive(
        server.base,
        round,
        () => killed,
        () => answered(),
      );
      // The kill lands at a random moment once the writes are flowing.
      await firstAnswer;
      await new Promise((r) => setTimeout(r, killAfterMs));
      killed = true;
      server.child.kill('SIGKILL');
      await server.stop('SIGKILL');
      const sent = await traffic;
      await waitForSessionsToEnd(database, applicationName);
      const serverErrors = server
        .output()
        .split('\n')
        .filter((line) => line.includes('"level":50'));
      assert.deepEqual(serverErrors, [], 'the server logged no error');
      for (const s of sent) if (s.text) allTexts.add(s.text);

      const store = openStore(database.url, loadConfig({ DATABASE_URL: database.url }).db);
      try {
        await checkIntegrity(store);
        const after = await readState(store);
        const favourites = checkFavourites(state, after, sent);
        await checkConversations(store, sent, allTexts);
        state = after;
        const ok = sent.filter((s) => s.status === 200).length;
        const inFlight = sent.filter((s) => s.status === undefined).length;
        ctx.diagnostic(
          `round ${round}: killed ${killAfterMs} ms into the traffic; ${ok} writes answered 200, ${inFlight} unanswered; ` +
            `${favourites.exact} favourite memberships checked exactly, ${favourites.open} left open by requests in flight`,
        );
        assert.ok(ok > 0, 'the server answered some writes before the kill');
      } finally {
        await store.close();
      }
    }

    // And after the last crash the server starts and serves from the state it left.
    const server = await startServerProcess(env);
    const user = 5;
    const listing = LISTINGS[0]!;
    const headers = {
      'x-api-key': SECRETS.API_KEY,
      authorization: `Bearer ${signToken({ jwtSecret: SECRETS.JWT_SECRET, tokenMacKey: SECRETS.TOKEN_MAC_KEY }, user, 'user5', 600)}`,
    };
    const agent = new Agent({ keepAlive: false });
    const reply = await post(agent, server.base, PATHS.toggle, headers, { listing_id: listing });
    assert.equal(reply.status, 200);
    const had = state.favourites.get(user) ?? [];
    const expected = had.includes(listing) ? had.filter((l) => l !== listing) : [...had, listing];
    assert.deepEqual(reply.body, expected);
    assert.equal(await server.stop('SIGTERM'), 0);
  });
});
