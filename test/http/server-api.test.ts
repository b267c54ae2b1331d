/**
 * The server API (docs/server-api.md) through a real listening server, on SQLite and PostgreSQL:
 * the server key's checks and limits, every route with its errors, idempotence, the token handed
 * out working on the app's routes and refused once the user is disabled, cursors, the size limit
 * of an import, revocation on a second instance within the settings refresh, and the audit rows.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { sql } from 'kysely';
import { newServerKey, serverKeyDigest } from '../../src/auth/server-keys.js';
import { SUPERSEDED_MESSAGE } from '../../src/http/routes/server/common.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { until } from '../helpers/until.js';

const PREFIX = '/souk/v1';

interface Server {
  t: TestSouk;
  base: string;
  key: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; json: any }>;
  app(method: string, path: string, userToken: string, body?: unknown): Promise<{ status: number; json: any }>;
}

async function addKey(t: TestSouk, name: string): Promise<string> {
  const key = newServerKey();
  assert.ok(await t.souk.store.serverKeys.add(name, serverKeyDigest(key), Date.now()));
  await t.souk.serverKeys.refresh();
  return key;
}

async function server(env: Record<string, string> = {}): Promise<Server> {
  const t = await startTestSouk({ RATE_LIMIT_AUTH_FAILURES: '1000', ...env });
  const address = await t.listen();
  const key = await addKey(t, 'backend');
  const send = async (method: string, url: string, body: unknown, headers: Record<string, string>) => {
    const res = await fetch(url, {
      method,
      headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, json: text === '' ? undefined : JSON.parse(text) };
  };
  return {
    t,
    base: address,
    key,
    call: (method, path, body, headers = { authorization: `Bearer ${key}` }) => send(method, `${address}${PREFIX}${path}`, body, headers),
    app: (method, path, token, body) =>
      send(method, `${address}/wp-json/rtcl/v1${path}`, body, { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey }),
  };
}

const shapeB = (status: number, error: string, message?: string) => (json: any) => {
  assert.deepEqual(Object.keys(json), ['status', 'error', 'code', 'error_message']);
  assert.equal(json.status, 'error');
  assert.equal(json.error, error);
  assert.equal(json.code, String(status));
  if (message !== undefined) assert.equal(json.error_message, message);
};

describe('the server API', () => {
  it('refuses anything but a server key in force: 401 shape B, counted as failed authentications', async () => {
    const s = await server({ RATE_LIMIT_AUTH_FAILURES: '6' });
    const refused: Array<Record<string, string>> = [
      {},
      { authorization: `Bearer ${s.t.apiKey}` },
      { 'x-api-key': s.t.apiKey },
      { authorization: `Bearer ${s.t.token(USERS.amina)}` },
      { authorization: `Bearer ${newServerKey()}` },
      { authorization: s.key },
    ];
    for (const headers of refused) {
      const res = await s.call('GET', '/reports', undefined, headers);
      assert.equal(res.status, 401, JSON.stringify(headers));
      shapeB(401, 'INVALID_SERVER_KEY')(res.json);
    }
    // Six failures from this address: the next request is refused before its key is read, a right one too.
    const throttled = await s.call('GET', '/reports');
    assert.equal(throttled.status, 429);
    shapeB(429, 'TOO_MANY_REQUESTS')(throttled.json);
  });

  it('limits the requests of a key (SERVER_API_RATE_LIMIT), from whatever address', async () => {
    const s = await server({ SERVER_API_RATE_LIMIT: '3' });
    for (let i = 0; i < 3; i++) assert.equal((await s.call('GET', '/reports')).status, 200);
    const over = await s.call('GET', '/reports');
    assert.equal(over.status, 429);
    shapeB(
      429,
      'TOO_MANY_REQUESTS',
      'Too many requests with this server key. Retry after the number of seconds in the Retry-After header.',
    )(over.json);
    // Another key has its own budget.
    const other = await addKey(s.t, 'other');
    assert.equal((await s.call('GET', '/reports', undefined, { authorization: `Bearer ${other}` })).status, 200);
  });

  it("counts each key's requests in /metrics", async () => {
    const s = await server({ METRICS_TOKEN: 'metrics-token-0123456789' });
    assert.equal((await s.call('GET', '/reports')).status, 200);
    assert.equal((await s.call('GET', '/users/999/export')).status, 404);
    const metrics = await fetch(`${s.base}/metrics`, { headers: { authorization: 'Bearer metrics-token-0123456789' } }).then((r) =>
      r.text(),
    );
    assert.match(metrics, /^souk_server_api_requests_total\{key="backend",status_code="200"\} 1$/m);
    assert.match(metrics, /^souk_server_api_requests_total\{key="backend",status_code="404"\} 1$/m);
  });

  it('upserts users and listings in the import format; again changes nothing; the app sees them at once', async () => {
    const s = await server();
    const user = { login: 'nadia', name: 'Nadia K.', email: 'nadia@example.com', first_name: 'Nadia', registered: '2026-11-02T09:15:00Z' };
    assert.deepEqual(await s.call('PUT', '/users/50', user), { status: 200, json: { id: 50 } });
    const first = (await s.call('GET', '/users/50/export')).json;
    assert.deepEqual(await s.call('PUT', '/users/50', { ...user, id: 50 }), { status: 200, json: { id: 50 } });
    const again = (await s.call('GET', '/users/50/export')).json;
    assert.deepEqual({ ...again, exported_at: null }, { ...first, exported_at: null });
    assert.equal(first.user.name, 'Nadia K.');

    const listing = { owner_id: 50, title: 'Road bike', price: '250', status: 'publish' };
    assert.deepEqual(await s.call('PUT', '/listings/500', listing), { status: 200, json: { id: 500 } });
    assert.deepEqual(await s.call('PUT', '/listings/500', listing), { status: 200, json: { id: 500 } });
    // The app: amina saves it and writes to its owner.
    const amina = s.t.token(USERS.amina);
    const saved = await s.app('POST', '/my/favourites', amina, { listing_id: 500 });
    assert.equal(saved.status, 200);
    assert.ok(saved.json.includes(500));
    const started = await s.app('POST', '/my/chat/conversation', amina, { listing_id: 500, text: 'Still for sale?' });
    assert.equal(started.status, 200, JSON.stringify(started.json));
    assert.equal(Number(started.json.recipient_id), 50);
  });

  it('refuses a bad body naming the field, as the import does, and a bad id', async () => {
    const s = await server();
    const cases: Array<[string, string, unknown, string]> = [
      ['PUT', '/users/51', { login: 5 }, 'login: expected string'],
      ['PUT', '/users/51', { name: 'No login' }, 'login: expected required property'],
      ['PUT', '/users/51', { login: 'x', id: 52 }, 'id: must be the id in the path (51), or left out'],
      ['PUT', '/users/51', { login: 'x', colour: 'red' }, ''],
      ['PUT', '/users/51', [1, 2], 'The request body must be a JSON object.'],
      ['PUT', '/users/51', { login: 'x', registered: '2026-02-30T10:00:00Z' }, 'registered: not a date and time that exists'],
      ['PUT', '/users/51', { login: 'x\u0000' }, 'login: must not contain the NUL character (U+0000)'],
      ['PUT', '/listings/501', { owner_id: 999, title: 'Orphan' }, 'owner_id: user 999 does not exist'],
      ['PUT', '/listings/501', { owner_id: USERS.amina, title: 'X', status: 'sold' }, ''],
      ['PUT', '/listings/501', { owner_id: USERS.amina, title: 'X', images: [{ ID: 'one' }] }, ''],
      ['PUT', '/users/abc', { login: 'x' }, 'id must be a positive integer.'],
      ['PUT', '/users/0', { login: 'x' }, 'id must be a positive integer.'],
      ['POST', '/users/99999999999999999999/disable', undefined, 'id must be a positive integer.'],
      ['POST', `/users/${USERS.amina}/disable`, { reason: 5 }, 'reason must be a string.'],
      ['POST', `/users/${USERS.amina}/disable`, { reason: 'x'.repeat(1001) }, 'reason must be at most 1000 characters.'],
      ['DELETE', `/users/${USERS.amina}`, { reason: 'a\u0000b' }, 'reason must not contain the NUL character (U+0000).'],
      ['POST', `/users/${USERS.amina}/tokens`, { ttl: 0 }, 'ttl must be an integer from 1 to 2592000 (TOKEN_MAX_TTL_S).'],
      ['POST', `/users/${USERS.amina}/tokens`, { ttl: '60' }, 'ttl must be an integer from 1 to 2592000 (TOKEN_MAX_TTL_S).'],
      ['POST', `/users/${USERS.amina}/tokens`, { ttl: 31 * 86_400 }, 'ttl must be an integer from 1 to 2592000 (TOKEN_MAX_TTL_S).'],
      ['GET', '/reports?status=pending', undefined, 'status must be open or closed.'],
      ['GET', '/reports?limit=0', undefined, 'limit must be between 1 and 100.'],
      ['GET', '/reports?limit=101', undefined, 'limit must be between 1 and 100.'],
      ['GET', '/reports?cursor=nope', undefined, 'cursor must be the next_cursor of an earlier page.'],
      [
        'POST',
        '/import',
        {
          users: [{ id: 60, login: 'ok' }],
          listings: [
            { id: 600, owner_id: 60, title: 'A' },
            { id: 601, owner_id: 61, title: 'B' },
          ],
        },
        'listings[1].owner_id: user 61 does not exist',
      ],
      ['POST', '/import', '{"users": [', 'The request body is not valid JSON.'],
    ];
    for (const [method, path, body, message] of cases) {
      const res = await s.call(method, path, body);
      assert.equal(res.status, 400, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(res.json)}`);
      shapeB(400, 'BADREQUEST', message || undefined)(res.json);
      if (!message)
        assert.match(res.json.error_message, /^[a-z_]+(\[\d+\]\.[A-Za-z_]+)?: /, `${path}: names the field: ${res.json.error_message}`);
    }
    // All or nothing: the import's good user was not stored.
    assert.equal((await s.call('GET', '/users/60/export')).status, 404);
    assert.equal((await s.call('GET', '/users/51/export')).status, 404);
  });

  it('answers unknown ids 404 in shape B, and a retried DELETE 200', async () => {
    const s = await server();
    for (const [method, path, what] of [
      ['POST', '/users/777/disable', 'user'],
      ['POST', '/users/777/enable', 'user'],
      ['DELETE', '/users/777', 'user'],
      ['GET', '/users/777/export', 'user'],
      ['POST', '/users/777/tokens', 'user'],
      ['POST', '/reports/777/close', 'report'],
      ['DELETE', '/messages/777', 'message'],
    ] as const) {
      const res = await s.call(method, path);
      assert.equal(res.status, 404, `${method} ${path}`);
      shapeB(404, 'NOT_FOUND', `No ${what} with id 777.`)(res.json);
    }
    assert.deepEqual(await s.call('DELETE', `/listings/${LISTINGS.table}`), { status: 200, json: { id: LISTINGS.table, deleted: true } });
    assert.deepEqual(await s.call('DELETE', `/listings/${LISTINGS.table}`), { status: 200, json: { id: LISTINGS.table, deleted: false } });
    assert.equal((await s.call('DELETE', `/users/${USERS.sara}`)).status, 200);
    const again = await s.call('DELETE', `/users/${USERS.sara}`);
    assert.equal(again.status, 200);
    assert.equal(again.json.erased, true);
  });

  it("hands out a user's token, which works on the app's routes until the user is disabled", async () => {
    const s = await server({ SETTINGS_REFRESH_MS: '100' });
    const issued = await s.call('POST', `/users/${USERS.amina}/tokens`, { ttl: 3600 });
    assert.equal(issued.status, 200);
    assert.deepEqual(Object.keys(issued.json), ['jwt_token', 'expires_in']);
    const now = Math.floor(Date.now() / 1000);
    assert.ok(Math.abs(issued.json.expires_in - (now + 3600)) <= 2, 'expires_in is the expiry as a Unix time, as sign-in gives');
    const token = issued.json.jwt_token as string;
    const me = await s.app('GET', '/my', token);
    assert.equal(me.status, 200);
    assert.equal(me.json.id, USERS.amina);
    // Without a body: sign-in's lifetime.
    const plain = await s.call('POST', `/users/${USERS.amina}/tokens`);
    assert.equal(plain.status, 200);
    assert.ok(Math.abs(plain.json.expires_in - (now + 86_400)) <= 2);

    assert.deepEqual(await s.call('POST', `/users/${USERS.amina}/disable`, { reason: 'spam' }), {
      status: 200,
      json: { id: USERS.amina, disabled: true, changed: true },
    });
    assert.deepEqual((await s.call('POST', `/users/${USERS.amina}/disable`)).json, { id: USERS.amina, disabled: true, changed: false });
    await until(async () => (await s.app('GET', '/my', token)).status !== 200);
    const refusedToken = await s.call('POST', `/users/${USERS.amina}/tokens`);
    assert.equal(refusedToken.status, 409);
    shapeB(409, 'CONFLICT')(refusedToken.json);
    assert.deepEqual((await s.call('POST', `/users/${USERS.amina}/enable`)).json, { id: USERS.amina, disabled: false, changed: true });
    // The disable revoked every token issued up to its second (auth/revoked-tokens.ts): the next one is good.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const fresh = (await s.call('POST', `/users/${USERS.amina}/tokens`)).json.jwt_token;
    assert.equal((await s.app('GET', '/my', fresh)).status, 200);
    // An erased user stays disabled.
    assert.equal((await s.call('DELETE', `/users/${USERS.amina}`)).status, 200);
    const enable = await s.call('POST', `/users/${USERS.amina}/enable`);
    assert.equal(enable.status, 409);
    shapeB(409, 'CONFLICT', `User ${USERS.amina} was erased: an erased user stays disabled.`)(enable.json);
  });

  it('lists reports newest first a page at a time by an opaque cursor, and closes them', async () => {
    const s = await server();
    // One open report per reporter and listing (docs/safety.md): Youssef's is about Amina's chair.
    for (const [userId, listingId, text] of [
      [USERS.amina, LISTINGS.bike, 'one'],
      [USERS.sara, LISTINGS.bike, 'two'],
      [USERS.youssef, LISTINGS.aminasOwn, 'three'],
    ] as const) {
      const res = await s.app('POST', '/listing/report', s.t.token(userId), { listing_id: listingId, message: text });
      assert.equal(res.status, 200);
    }
    const first = await s.call('GET', '/reports?limit=2');
    assert.equal(first.status, 200);
    assert.deepEqual(
      first.json.data.map((r: any) => r.reason),
      ['three', 'two'],
    );
    assert.equal(typeof first.json.next_cursor, 'string');
    const second = await s.call('GET', `/reports?limit=2&cursor=${first.json.next_cursor}`);
    assert.deepEqual(
      second.json.data.map((r: any) => r.reason),
      ['one'],
    );
    assert.equal(second.json.next_cursor, null);
    const report = first.json.data[0];
    assert.deepEqual(Object.keys(report), [
      'id',
      'status',
      'kind',
      'reporter_id',
      'reported_user_id',
      'listing_id',
      'con_id',
      'message_id',
      'reason',
      'messages',
      'created_at',
      'closed_at',
    ]);
    assert.equal(report.status, 'open');
    assert.equal(report.kind, 'listing');
    assert.equal(report.reporter_id, USERS.youssef);

    assert.deepEqual((await s.call('POST', `/reports/${report.id}/close`, { reason: 'checked: not a scam' })).json, {
      id: report.id,
      status: 'closed',
      changed: true,
    });
    assert.deepEqual((await s.call('POST', `/reports/${report.id}/close`)).json, { id: report.id, status: 'closed', changed: false });
    const open = await s.call('GET', '/reports?status=open');
    assert.deepEqual(
      open.json.data.map((r: any) => r.reason),
      ['two', 'one'],
    );
    const closed = await s.call('GET', '/reports?status=closed');
    assert.deepEqual(
      closed.json.data.map((r: any) => [r.reason, r.status]),
      [['three', 'closed']],
    );
  });

  it("removes a message as the plugin's admin does; again answers 200", async () => {
    const s = await server();
    const amina = s.t.token(USERS.amina);
    const started = await s.app('POST', '/my/chat/conversation', amina, { listing_id: LISTINGS.bike, text: 'You are a crook' });
    assert.equal(started.status, 200);
    const messageId = Number(started.json.newMessage.message_id);
    const removed = await s.call('DELETE', `/messages/${messageId}?reason=insults`);
    assert.deepEqual(removed, { status: 200, json: { id: messageId, con_id: Number(started.json.con_id), removed: true } });
    assert.equal((await s.call('DELETE', `/messages/${messageId}`)).status, 200);
    const read = await s.app('GET', `/my/chat/conversation?con_id=${started.json.con_id}`, amina);
    assert.equal(read.json.messages[0].message, '');
  });

  it('imports a whole document, all or nothing, within SERVER_API_IMPORT_LIMIT (413 beyond), the other routes within BODY_LIMIT', async () => {
    const s = await server({ BODY_LIMIT: '1024', SERVER_API_IMPORT_LIMIT: '4096' });
    const document = {
      users: [{ id: 70, login: 'omar' }],
      listings: Array.from({ length: 30 }, (_, i) => ({ id: 700 + i, owner_id: i % 2 ? 70 : USERS.amina, title: `Lamp ${i}` })),
    };
    assert.ok(JSON.stringify(document).length > 1024, 'larger than BODY_LIMIT');
    assert.deepEqual(await s.call('POST', '/import', document), { status: 200, json: { users: 1, listings: 30 } });
    assert.deepEqual(await s.call('POST', '/import', document), { status: 200, json: { users: 1, listings: 30 } });
    const big = { listings: Array.from({ length: 100 }, (_, i) => ({ id: 800 + i, owner_id: 70, title: `Item number ${i}` })) };
    const over = await s.call('POST', '/import', big);
    assert.equal(over.status, 413);
    shapeB(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than the limit of 4096 bytes.')(over.json);
    const put = await s.call('PUT', '/users/71', { login: 'long', description: 'x'.repeat(2000) });
    assert.equal(put.status, 413);
    shapeB(413, 'PAYLOAD_TOO_LARGE', 'The request body is larger than the limit of 1024 bytes.')(put.json);
  });

  it('writes every change to the audit log in its own transaction: who, what, which id, why; an erasure names the id only', async () => {
    const s = await server();
    await s.call('PUT', '/users/80?reason=signed%20up', { login: 'lina', email: 'lina@example.com', name: 'Lina Secret' });
    await s.call('POST', '/users/80/disable', { reason: 'spam' });
    await s.call('POST', '/users/80/tokens', { ttl: 60 }).catch(() => {});
    await s.call('POST', '/users/80/enable');
    await s.call('GET', '/users/80/export');
    await s.call('DELETE', '/users/80?reason=asked%20by%20e-mail');
    await s.call('GET', '/reports');
    const rows = (await s.t.souk.store.audit.list({ limit: 100 })).reverse();
    assert.deepEqual(
      rows.map((r) => [r.actor.kind, r.actor.name, r.action, r.targetKind, r.targetId, r.reason]),
      [
        ['server_key', 'backend', 'user.upsert', 'user', 80, 'signed up'],
        ['server_key', 'backend', 'user.disable', 'user', 80, 'spam'],
        ['server_key', 'backend', 'user.enable', 'user', 80, null],
        ['server_key', 'backend', 'user.export', 'user', 80, null],
        ['server_key', 'backend', 'user.erase', 'user', 80, 'asked by e-mail'],
      ],
    );
    const text = JSON.stringify(rows);
    for (const secret of ['lina', 'Lina Secret', 'lina@example.com']) assert.ok(!text.includes(secret), `no ${secret} in the audit rows`);
    const byKey = await s.t.souk.store.audit.list({ actor: 'backend', limit: 2 });
    assert.deepEqual(
      byKey.map((r) => r.action),
      ['user.erase', 'user.export'],
    );
    const older = await s.t.souk.store.audit.list({ limit: 100, beforeId: byKey[1]!.id });
    assert.equal(older.length, 3);

    // A change and its row commit together: with no audit table to write to, the change does not land either.
    const db = s.t.souk.store.db;
    await sql`alter table audit_log rename to audit_log_away`.execute(db);
    try {
      assert.equal((await s.call('PUT', '/users/81', { login: 'omar' })).status, 500);
      assert.equal((await s.call('POST', `/users/${USERS.amina}/disable`)).status, 500);
    } finally {
      await sql`alter table audit_log_away rename to audit_log`.execute(db);
    }
    assert.equal(await s.t.souk.store.repos.users.findById(81), undefined);
    assert.equal((await s.t.souk.store.repos.users.findById(USERS.amina))!.disabled, false);
    assert.equal((await s.call('PUT', '/users/81', { login: 'omar' })).status, 200);
    assert.deepEqual(
      (await s.t.souk.store.audit.list({ limit: 1 })).map((r) => [r.action, r.targetId]),
      [['user.upsert', 81]],
    );
  });

  it("lists the outboxes' deliveries by kind and status a page at a time, and sends a failed one again (audited); 400, 404, 409", async () => {
    const s = await server();
    const db = s.t.souk.store.db;
    const at = Date.parse('2026-11-30T18:00:00Z');
    const bare = { user_id: USERS.amina, created_at: at, attempts: 9, next_attempt_at: at, last_error: 'HTTP 503' };
    const common = { ...bare, payload: '{}' };
    const webhook = (status: string, n: number) =>
      db
        .insertInto('webhook_outbox')
        .values({
          ...common,
          message_id: `msg_${n}`,
          url: 'https://hook:pa55@hooks.example.com/souk',
          type: 'message.new',
          window_from: at,
          status,
          delivered_at: null,
        })
        .returning('id')
        .executeTakeFirstOrThrow();
    const [w1, w2, w3] = [await webhook('failed', 1), await webhook('delivered', 2), await webhook('failed', 3)].map((r) => Number(r.id));
    const mail = Number(
      (
        await db
          .insertInto('mail_outbox')
          .values({ ...bare, con_id: 5, pending_key: null, first_message_id: 7, last_message_id: 9, status: 'failed', sent_at: null })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    const push = Number(
      (
        await db
          .insertInto('push_outbox')
          .values({ ...common, message_id: 7, status: 'sent' })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );
    const pusher = Number(
      (
        await db
          .insertInto('pusher_outbox')
          .values({ ...common, name: 'message', status: 'failed', sent_at: null })
          .returning('id')
          .executeTakeFirstOrThrow()
      ).id,
    );

    const all = await s.call('GET', '/deliveries?kind=webhook');
    assert.equal(all.status, 200);
    assert.deepEqual(
      all.json.data.map((d: any) => [d.id, d.status]),
      [
        [`webhook:${w3}`, 'failed'],
        [`webhook:${w2}`, 'delivered'],
        [`webhook:${w1}`, 'failed'],
      ],
    );
    assert.deepEqual(all.json.data[0], {
      id: `webhook:${w3}`,
      kind: 'webhook',
      status: 'failed',
      user_id: USERS.amina,
      attempts: 9,
      created_at: '2026-11-30T18:00:00.000Z',
      next_attempt_at: '2026-11-30T18:00:00.000Z',
      sent_at: null,
      last_error: 'HTTP 503',
      details: { type: 'message.new', url: 'https://hook:****@hooks.example.com/souk', webhook_id: 'msg_3' },
    });
    assert.equal(all.json.next_cursor, null);
    const failed = await s.call('GET', '/deliveries?kind=webhook&status=failed&limit=1');
    assert.deepEqual(
      failed.json.data.map((d: any) => d.id),
      [`webhook:${w3}`],
    );
    const next = await s.call('GET', `/deliveries?kind=webhook&status=failed&limit=1&cursor=${failed.json.next_cursor}`);
    assert.deepEqual(
      next.json.data.map((d: any) => d.id),
      [`webhook:${w1}`],
    );
    const last = await s.call('GET', `/deliveries?kind=webhook&status=failed&limit=1&cursor=${next.json.next_cursor}`);
    assert.deepEqual(last.json, { data: [], next_cursor: null });
    assert.deepEqual((await s.call('GET', '/deliveries?kind=mail&status=failed')).json.data[0].details, {
      con_id: 5,
      first_message_id: 7,
      last_message_id: 9,
    });
    assert.deepEqual(
      (await s.call('GET', '/deliveries?kind=push')).json.data.map((d: any) => [d.id, d.details]),
      [[`push:${push}`, { message_id: 7 }]],
    );
    assert.deepEqual((await s.call('GET', '/deliveries?kind=pusher&status=sent')).json.data, []);
    for (const [query, message] of [
      ['', 'kind must be webhook, mail, push or pusher.'],
      ['kind=sms', 'kind must be webhook, mail, push or pusher.'],
      ['kind=pusher&status=skipped', 'status must be one of pending, sent, failed for pusher deliveries.'],
      ['kind=mail&cursor=nope', 'cursor must be the next_cursor of an earlier page.'],
    ]) {
      const res = await s.call('GET', `/deliveries?${query}`);
      assert.equal(res.status, 400, query);
      shapeB(400, 'BADREQUEST', message)(res.json);
    }

    const retried = await s.call('POST', `/deliveries/webhook:${w1}/retry`, { reason: 'receiver fixed' });
    assert.equal(retried.status, 200);
    assert.deepEqual([retried.json.id, retried.json.status, retried.json.attempts], [`webhook:${w1}`, 'pending', 0]);
    const again = await s.call('POST', `/deliveries/webhook:${w1}/retry`);
    assert.equal(again.status, 409);
    shapeB(409, 'CONFLICT', `Delivery webhook:${w1} is pending, not failed: only a failed delivery is sent again.`)(again.json);
    assert.equal((await s.call('POST', `/deliveries/webhook:${w2}/retry`)).status, 409);
    assert.equal((await s.call('POST', `/deliveries/push:${push}/retry`)).status, 409);
    assert.equal((await s.call('POST', `/deliveries/mail:${mail}/retry`)).json.status, 'pending');
    assert.equal((await s.call('POST', `/deliveries/pusher:${pusher}/retry?reason=app%20keys%20fixed`)).json.status, 'pending');
    // A failed mail whose conversation has a pending one: that one carries the same unread messages.
    const mailRow = (status: string, key: string | null) =>
      db
        .insertInto('mail_outbox')
        .values({ ...bare, con_id: 6, pending_key: key, first_message_id: 7, last_message_id: 9, status, sent_at: null })
        .returning('id')
        .executeTakeFirstOrThrow();
    const stale = Number((await mailRow('failed', null)).id);
    await mailRow('pending', `${USERS.amina}:6`);
    const superseded = await s.call('POST', `/deliveries/mail:${stale}/retry`);
    assert.equal(superseded.status, 409);
    shapeB(409, 'CONFLICT', SUPERSEDED_MESSAGE)(superseded.json);
    const missing = await s.call('POST', '/deliveries/webhook:999999/retry');
    assert.equal(missing.status, 404);
    shapeB(404, 'NOT_FOUND', 'No delivery with id webhook:999999.')(missing.json);
    for (const id of ['12', 'sms:1', 'webhook:0']) {
      const res = await s.call('POST', `/deliveries/${id}/retry`);
      assert.equal(res.status, 400, id);
      shapeB(400, 'BADREQUEST')(res.json);
    }
    const rows = (await s.t.souk.store.audit.list({ limit: 10 })).reverse();
    assert.deepEqual(
      rows.map((r) => [r.actor.name, r.action, r.targetKind, r.targetId, r.reason]),
      [
        ['backend', 'delivery.retry', 'webhook', w1, 'receiver fixed'],
        ['backend', 'delivery.retry', 'mail', mail, null],
        ['backend', 'delivery.retry', 'pusher', pusher, 'app keys fixed'],
      ],
    );
  });

  it('stops taking a revoked key on every instance within SETTINGS_REFRESH_MS', async () => {
    const s = await server({ SETTINGS_REFRESH_MS: '100' });
    const other = await startTestSouk({ DATABASE_URL: s.t.database.url, SETTINGS_REFRESH_MS: '100' }, null);
    const otherBase = await other.listen();
    const onOther = () => fetch(`${otherBase}${PREFIX}/reports`, { headers: { authorization: `Bearer ${s.key}` } }).then((r) => r.status);
    assert.equal(await onOther(), 200);
    assert.ok(await s.t.souk.store.serverKeys.remove('backend'));
    await until(async () => (await onOther()) === 401);
    await until(async () => (await s.call('GET', '/reports')).status === 401);
    const listed = await s.t.souk.store.serverKeys.list();
    assert.deepEqual(listed, []);
  });
});
