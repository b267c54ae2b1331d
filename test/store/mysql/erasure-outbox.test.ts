/**
 * An erasure on a WordPress site's tables (docs/safety.md, "A user's data"): the other users'
 * webhook rows that carry the erased user's words or profile go with it (`souk users erase`, the
 * real CLI), so `souk webhooks replay` sends none of them again.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { startTestSouk } from '../../helpers/souk.js';
import { runCli } from '../../helpers/cli.js';
import { until } from '../../helpers/until.js';
import { webhookReceiver } from '../../helpers/webhook-receiver.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-erasure-outbox-secret-0123456789abcdef';
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';
const API = '/wp-json/rtcl/v1';
const WORDS = 'call me on 0600 123 456';

describe('an erasure and the webhook outbox on a WordPress site', { skip }, () => {
  it("deletes the other side's rows that carry the erased user; replay sends none of them", async () => {
    const site = await wordpressDatabase('wordpress-seeded.sql');
    const secret = `whsec_${randomBytes(32).toString('base64')}`;
    const hooks = await webhookReceiver(secret);
    const t = await startTestSouk({ DATABASE_URL: site.url, JWT_SECRET, WEBHOOK_URLS: hooks.url, WEBHOOK_SECRET: secret }, null);
    const auth = (user: number) => ({ authorization: `Bearer ${t.token(user, { login: SITE_LOGINS[user] })}`, 'x-api-key': t.apiKey });
    const started = await t.post(`${API}/my/chat/conversation`, { listing_id: SITE_LISTINGS.iphone, text: WORDS }, auth(SITE_USERS.alice));
    assert.equal(started.statusCode, 200, started.body);
    await until(async () => {
      const rows = await t.souk.store.webhooks!.list({ limit: 100 });
      return rows.length >= 2 && rows.every((d) => d.status === 'delivered');
    });
    const carriesAlice = (text: string) => text.includes(WORDS) || text.includes('alice@example.test');
    const bobs = async () => (await t.souk.store.webhooks!.list({ limit: 100 })).filter((d) => d.userId === SITE_USERS.bob);
    assert.ok((await bobs()).some((d) => carriesAlice(d.payload)));

    const env = { DATABASE_URL: site.url, JWT_SECRET };
    const erased = await runCli(['users', 'erase', String(SITE_USERS.alice)], env);
    assert.equal(erased.code, 0, erased.stderr);
    const left = await bobs();
    assert.deepEqual(
      left.filter((d) => carriesAlice(d.payload)),
      [],
    );

    const before = hooks.received.length;
    const replayed = await runCli(['webhooks', 'replay', '--since', '1h'], env);
    assert.equal(replayed.code, 0, replayed.stderr);
    const total = (await t.souk.store.webhooks!.list({ limit: 100 })).length;
    await until(() => hooks.received.length >= before + total);
    assert.deepEqual(
      hooks.received.slice(before).filter((r) => carriesAlice(JSON.stringify(r.body))),
      [],
    );
  });
});
