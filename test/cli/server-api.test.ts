/**
 * The server API's keys and the audit log as the operator runs them: `souk server-keys
 * create|list|revoke` beside a real `souk serve` (a revoked key refused within SETTINGS_REFRESH_MS),
 * and `souk audit list` with the rows the CLI's moderation writes (`--reason`) and a key's changes,
 * and `souk deliveries list|retry`, on one database (SQLite, or PostgreSQL with TEST_DATABASE_URL).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.js';
import { freshDatabase } from '../helpers/database.js';
import { marketplace, USERS } from '../helpers/fixtures.js';
import { ok, scratch, souk, startServer } from '../helpers/cli.js';
import { until } from '../helpers/until.js';

describe('souk server-keys, souk audit list', () => {
  it('makes a key printed once and kept as a hash, lists it, revokes it on the running server', async (t) => {
    const { dir, db } = scratch(t);
    const database = await freshDatabase();
    t.after(() => database.drop());
    const env = { DATABASE_URL: database.url, SETTINGS_REFRESH_MS: '100' };
    const created = await souk(db, ['server-keys', 'create', 'backend'], { env });
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /^sk_[A-Za-z0-9_-]{43}\n$/);
    assert.match(created.stderr, /server key backend created: keep it now, it is not shown again/);
    const key = created.stdout.trim();
    const twice = await souk(db, ['server-keys', 'create', 'backend'], { env });
    assert.equal(twice.code, 1);
    assert.equal(twice.stderr, 'souk: a server key named backend exists: revoke it first, or choose another name\n');
    const badName = await souk(db, ['server-keys', 'create', 'two words'], { env });
    assert.equal(badName.code, 1);
    assert.match(badName.stderr, /NAME must be letters, digits/);
    // Only the SHA-256 is stored.
    const store = openStore(database.url, { poolSize: 1, statementTimeoutMs: 5000, connectTimeoutMs: 5000 });
    try {
      assert.deepEqual(await store.serverKeys.active(), [{ name: 'backend', digest: createHash('sha256').update(key).digest('hex') }]);
    } finally {
      await store.close();
    }
    const listed = await ok(db, ['server-keys', 'list'], { env });
    assert.match(listed, /^name\tcreated\tlast used\nbackend\t\d{4}-\d\d-\d\dT[\d:.]+Z\tnever\n$/);

    const document = join(dir, 'marketplace.json');
    writeFileSync(document, JSON.stringify(marketplace()));
    await ok(db, ['import', document], { env });
    const { server } = await startServer(t, db, env);
    const reports = () => fetch(`${server.url}/souk/v1/reports`, { headers: { authorization: `Bearer ${key}` } }).then((r) => r.status);
    assert.equal(await reports(), 200);
    await until(async () => !(await ok(db, ['server-keys', 'list'], { env })).includes('never'));
    assert.equal(
      await ok(db, ['server-keys', 'revoke', 'backend'], { env }),
      'server key backend revoked: every server refuses it within SETTINGS_REFRESH_MS\n',
    );
    await until(async () => (await reports()) === 401);
    const again = await souk(db, ['server-keys', 'revoke', 'backend'], { env });
    assert.equal(again.code, 1);
    assert.equal(again.stderr, 'souk: no server key named backend\n');
  });

  it("lists the audit log: the CLI's moderation with its reasons, filtered by actor, time and count", async (t) => {
    const { dir, db } = scratch(t);
    const database = await freshDatabase();
    t.after(() => database.drop());
    const env = { DATABASE_URL: database.url };
    const document = join(dir, 'marketplace.json');
    writeFileSync(document, JSON.stringify(marketplace()));
    await ok(db, ['import', document], { env });
    await ok(db, ['users', 'disable', String(USERS.sara), '--reason', 'spam, report 12'], { env });
    await ok(db, ['users', 'enable', String(USERS.sara)], { env });
    await ok(db, ['users', 'erase', String(USERS.sara), '--reason', 'asked by e-mail'], { env });
    const rows = (await ok(db, ['audit', 'list'], { env })).replace(/\n$/, '').split('\n');
    assert.equal(rows[0], 'id\ttime\tactor kind\tactor\taction\ttarget\tdetails\treason');
    const fields = rows.slice(1).map((r) => r.split('\t'));
    assert.deepEqual(
      fields.map(([, , kind, actor, action, target, details, reason]) => [kind, actor, action, target, details, reason]),
      [
        ['cli', 'cli', 'user.erase', `user ${USERS.sara}`, '', 'asked by e-mail'],
        ['cli', 'cli', 'user.enable', `user ${USERS.sara}`, '', ''],
        ['cli', 'cli', 'user.disable', `user ${USERS.sara}`, '', 'spam, report 12'],
        ['cli', 'cli', 'catalog.import', 'catalog', JSON.stringify({ users: 4, listings: 5 }), ''],
      ],
    );
    assert.equal((await ok(db, ['audit', 'list', '--limit', '1'], { env })).trimEnd().split('\n').length, 2);
    assert.equal((await ok(db, ['audit', 'list', '--actor', 'backend'], { env })).trimEnd().split('\n').length, 1);
    assert.equal((await ok(db, ['audit', 'list', '--since', '1h', '--actor', 'cli'], { env })).trimEnd().split('\n').length, 5);
    assert.equal((await ok(db, ['audit', 'list', '--since', '2099-01-01T00:00:00Z'], { env })).trimEnd().split('\n').length, 1);
    const bad = await souk(db, ['audit', 'list', '--limit', '0'], { env });
    assert.equal(bad.code, 1);
    assert.equal(bad.stderr, 'souk: --limit must be an integer from 1 to 100000, got "0"\n');

    // souk deliveries list|retry: the server API's deliveries, on the server's shell.
    const store = openStore(database.url, { poolSize: 1, statementTimeoutMs: 5000, connectTimeoutMs: 5000 });
    t.after(() => store.close());
    const { id } = await store.db
      .insertInto('webhook_outbox')
      .values({
        message_id: 'msg_1',
        url: 'https://hook:pa55@hooks.example.com/souk',
        type: 'message.new',
        user_id: USERS.amina,
        payload: '{}',
        created_at: Date.parse('2026-11-30T18:00:00Z'),
        window_from: 0,
        status: 'failed',
        attempts: 9,
        next_attempt_at: 0,
        last_error: 'HTTP 503',
        delivered_at: null,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    assert.equal(
      await ok(db, ['deliveries', 'list', '--kind', 'webhook', '--status', 'failed'], { env }),
      `id\tstatus\tattempts\tcreated\tuser\tabout\tlast error\nwebhook:${id}\tfailed\t9\t2026-11-30T18:00:00.000Z\t${USERS.amina}\tmessage.new to https://hook:****@hooks.example.com/souk\tHTTP 503\n`,
    );
    assert.equal(
      await ok(db, ['deliveries', 'retry', `webhook:${id}`, '--reason', 'receiver back'], { env }),
      `webhook:${id} will be sent again\n`,
    );
    const [retried] = await store.audit.list({ limit: 1 });
    assert.deepEqual(
      [retried!.actor.name, retried!.action, retried!.targetKind, retried!.targetId, retried!.reason],
      ['cli', 'delivery.retry', 'webhook', Number(id), 'receiver back'],
    );
  });
});
