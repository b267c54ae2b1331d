/**
 * Crash safety on a WordPress database, as test/faults/crash.test.ts on Souk's own: a real
 * `souk serve` on original/wordpress-seeded.sql (twelve more users added as WordPress stores
 * them) takes toggles and conversation starts at full speed and is killed with SIGKILL at a
 * random moment, three times over one database. After each kill, once MariaDB has ended the
 * killed server's sessions:
 * - every toggle answered 200 is in the users' `rtcl_favourites` meta: each favourite whose
 *   toggles were all answered is there or not as their count implies, and a user with nothing
 *   in flight has the list of their last reply;
 * - every start answered 200 has its message, with its text, in its conversation, and every
 *   conversation's last_message_id is its newest message; no open conversation is there twice.
 * A request in flight at the kill may or may not have committed; the checks allow both.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { signToken } from '../../../src/auth/jwt.js';
import { parseFavourites } from '../../../src/store/mysql/repositories.js';
import { startServerProcess } from '../../helpers/processes.js';
import { PATHS } from '../../helpers/souk.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';
import type { WordpressDatabase } from '../../helpers/wordpress.js';

const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';
const ROUNDS = Number(process.env.CRASH_ROUNDS ?? 3);
const CONCURRENCY = 16;
const JWT_SECRET = 'souk-mysql-crash-secret-0123456789';
const TOKEN_MAC_KEY = 'souk-mysql-crash-mac-key-0123456789';
const { alice, bob, carol } = SITE_USERS;
const { iphone, table, laptop } = SITE_LISTINGS;
/** The seeded listings and their owners (12 is bob's road bike). */
const LISTINGS: Record<number, number> = { [iphone]: bob, [table]: bob, 12: bob, [laptop]: carol };
const LISTING_IDS = Object.keys(LISTINGS).map(Number);
const USERS = [alice, bob, carol, ...Array.from({ length: 12 }, (_, i) => 101 + i)];
const login = (user: number) => SITE_LOGINS[user] ?? `buyer${user}`;

interface Sent {
  user: number;
  op: 'toggle' | 'start';
  listing: number;
  text?: string;
  status?: number;
  body?: any;
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

async function drive(base: string, apiKey: string, round: number, killed: () => boolean, onAnswer: () => void): Promise<Sent[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const headers = new Map(
    USERS.map((u) => [
      u,
      {
        'x-api-key': apiKey,
        authorization: `Bearer ${signToken({ jwtSecret: JWT_SECRET, tokenMacKey: TOKEN_MAC_KEY }, u, login(u), 3600)}`,
      },
    ]),
  );
  const sent: Sent[] = [];
  let seq = 0;
  const worker = async () => {
    while (!killed()) {
      const user = USERS[Math.floor(Math.random() * USERS.length)]!;
      const listing = LISTING_IDS[Math.floor(Math.random() * LISTING_IDS.length)]!;
      const op = Math.random() < 0.6 || LISTINGS[listing] === user ? 'toggle' : 'start';
      const entry: Sent = { user, op, listing };
      sent.push(entry);
      const n = seq++;
      const body =
        op === 'toggle'
          ? { listing_id: listing }
          : { listing_id: listing, text: (entry.text = `r${round}-m${n}`), temp_id: round * 1_000_000 + n };
      try {
        const reply = await post(agent, base, op === 'toggle' ? PATHS.toggle : PATHS.start, headers.get(user)!, body);
        entry.status = reply.status;
        entry.body = reply.body;
        onAnswer();
      } catch {
        if (!killed()) await new Promise((r) => setTimeout(r, 5));
      }
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  agent.destroy();
  return sent;
}

async function favouritesOf(site: WordpressDatabase): Promise<Map<number, number[]>> {
  const found = await site.query<{ user_id: number; meta_value: string }>(
    "select user_id, meta_value from wp_usermeta where meta_key = 'rtcl_favourites' order by umeta_id",
  );
  const out = new Map<number, number[]>();
  for (const r of found) if (!out.has(Number(r.user_id))) out.set(Number(r.user_id), parseFavourites(r.meta_value));
  return out;
}

/** MariaDB rolls back a killed client's open transaction when it sees the connection close: wait for that. */
async function waitForSessionsToEnd(site: WordpressDatabase): Promise<void> {
  for (let i = 0; i < 200; i++) {
    const [row] = await site.query<{ n: number }>(
      'select count(*) as n from information_schema.processlist where db = ? and id <> connection_id()',
      [site.name],
    );
    if (Number(row!.n) === 0) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error("the killed server's sessions are still open after 10 s");
}

function checkFavourites(before: Map<number, number[]>, after: Map<number, number[]>, sent: Sent[]): number {
  const answered = new Map<string, number>();
  const unanswered = new Set<string>();
  const inFlight = new Set<number>();
  const replies = new Map<number, number[][]>();
  for (const s of sent) {
    if (s.op !== 'toggle') continue;
    const key = `${s.user}:${s.listing}`;
    if (s.status === 200) {
      answered.set(key, (answered.get(key) ?? 0) + 1);
      replies.set(s.user, [...(replies.get(s.user) ?? []), s.body as number[]]);
    } else {
      assert.equal(s.status, undefined, `toggle answered ${s.status}: ${JSON.stringify(s.body)}`);
      unanswered.add(key);
      inFlight.add(s.user);
    }
  }
  let exact = 0;
  for (const user of USERS) {
    const final = after.get(user) ?? [];
    assert.equal(new Set(final).size, final.length, `user ${user}'s favourites list an id twice`);
    for (const listing of LISTING_IDS) {
      const key = `${user}:${listing}`;
      if (unanswered.has(key)) continue;
      const was = (before.get(user) ?? []).includes(listing);
      const flips = answered.get(key) ?? 0;
      assert.equal(
        final.includes(listing),
        flips % 2 === 1 ? !was : was,
        `user ${user} listing ${listing}: ${flips} answered toggles from ${was}`,
      );
      exact++;
    }
    const mine = replies.get(user);
    if (mine && !inFlight.has(user)) {
      assert.ok(
        mine.some((r) => JSON.stringify(r) === JSON.stringify(final)),
        `user ${user}: ${JSON.stringify(final)} is none of the replies`,
      );
    }
  }
  return exact;
}

async function checkConversations(site: WordpressDatabase, sent: Sent[]): Promise<void> {
  const conversations = await site.query<{
    con_id: number;
    listing_id: number;
    sender_id: number;
    recipient_id: number;
    last_message_id: number;
    sender_delete: number;
    recipient_delete: number;
  }>('select * from wp_rtcl_conversations');
  const messages = await site.query<{ message_id: number; con_id: number; source_id: number; message: string }>(
    'select message_id, con_id, source_id, message from wp_rtcl_conversation_messages order by message_id',
  );
  const open = new Set<string>();
  for (const c of conversations) {
    const own = messages.filter((m) => Number(m.con_id) === Number(c.con_id));
    assert.ok(own.length >= 1, `conversation ${c.con_id} has no message`);
    assert.equal(Number(c.last_message_id), Number(own.at(-1)!.message_id), `conversation ${c.con_id}: last_message_id is not its newest`);
    if (Number(c.sender_delete) === 0 && Number(c.recipient_delete) === 0) {
      const key = `${c.listing_id}:${c.sender_id}:${c.recipient_id}`;
      assert.ok(!open.has(key), `two open conversations ${key}`);
      open.add(key);
    }
  }
  const byId = new Map(messages.map((m) => [Number(m.message_id), m]));
  for (const s of sent) {
    if (s.op !== 'start' || s.status === undefined) continue;
    assert.equal(s.status, 200, `start answered ${s.status}: ${JSON.stringify(s.body)}`);
    const stored = byId.get(Number(s.body.newMessage.message_id));
    assert.ok(stored, `message ${s.body.newMessage.message_id} answered 200 is missing`);
    assert.equal(stored.message, s.text);
    assert.equal(Number(stored.con_id), Number(s.body.con_id));
    assert.equal(Number(stored.source_id), s.user);
  }
}

describe('crash safety on a WordPress database', { skip }, () => {
  it(`${ROUNDS} SIGKILLs at random moments under full-speed writes lose no answered write`, async (ctx) => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    // More buyers, as WordPress stores users (their profile metas are optional).
    for (const user of USERS.filter((u) => u > 100)) {
      await site.query(
        "insert into wp_users (ID, user_login, user_pass, user_nicename, user_email, user_registered, display_name) values (?, ?, '', ?, ?, now(), ?)",
        [user, login(user), login(user), `${login(user)}@example.test`, login(user)],
      );
    }
    const [key] = await site.query<{ option_value: string }>("select option_value from wp_options where option_name = 'rtcl_rest_api_key'");
    const env = { DATABASE_URL: site.url, JWT_SECRET, TOKEN_MAC_KEY, RATE_LIMIT_PER_USER: '0' };
    let state = await favouritesOf(site);

    for (let round = 1; round <= ROUNDS; round++) {
      const server = await startServerProcess(env);
      const killAfterMs = 200 + Math.floor(Math.random() * 1300);
      let killed = false;
      let answered!: () => void;
      const firstAnswer = new Promise<void>((resolve) => (answered = resolve));
      const traffic = drive(
        server.base,
        key!.option_value,
        round,
        () => killed,
        () => answered(),
      );
      await firstAnswer;
      await new Promise((r) => setTimeout(r, killAfterMs));
      killed = true;
      server.child.kill('SIGKILL');
      await server.stop('SIGKILL');
      const sent = await traffic;
      await waitForSessionsToEnd(site);
      const errors = server
        .output()
        .split('\n')
        .filter((line) => line.includes('"level":50'));
      assert.deepEqual(errors, [], 'the server logged no error');
      // A write answered 503 names its cause here (a deadlock, a lock wait, a lost connection), not only its status.
      const unavailable = server
        .output()
        .split('\n')
        .filter((line) => line.includes('database unavailable'));
      assert.deepEqual(unavailable, [], 'the database was never unavailable to the server');

      const after = await favouritesOf(site);
      const exact = checkFavourites(state, after, sent);
      await checkConversations(site, sent);
      state = after;
      const ok = sent.filter((s) => s.status === 200).length;
      ctx.diagnostic(
        `round ${round}: killed ${killAfterMs} ms into the traffic; ${ok} writes answered 200, ` +
          `${sent.filter((s) => s.status === undefined).length} unanswered; ${exact} favourite memberships checked exactly`,
      );
      assert.ok(ok > 0, 'the server answered some writes before the kill');
    }
  });
});
