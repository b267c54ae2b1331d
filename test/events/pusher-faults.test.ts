/**
 * Pusher down, slow, refusing or failing (docs/pusher.md, "Delivery"): requests answer as fast as
 * without Pusher and store what they store; the events wait in the outbox and go once Pusher takes
 * them again; no answer, 429 and 5xx are retried for PUSHER_RETRY_FOR_S, then kept as failed; 401
 * and 413 are not retried and logged once with Pusher's answer, never with the secret; an event
 * over 10 KB goes trimmed; /metrics counts each outcome and the delivery latency.
 * On SQLite, and on PostgreSQL with TEST_DATABASE_URL; alone (it times requests).
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS, marketplace } from '../helpers/fixtures.js';
import { pusherServer } from '../helpers/pusher-server.js';
import { until } from '../helpers/until.js';

const API = '/wp-json/rtcl/v1';
const MESSAGE = `${API}/my/chat/message`;

async function faultySouk(env: Record<string, string> = {}) {
  const server = await pusherServer();
  const lines: string[] = [];
  const t = await startTestSouk(
    {
      PUSHER_URL: server.url,
      PUSHER_RETRY_BASE_MS: '50',
      PUSHER_TIMEOUT_MS: '300',
      LOG_LEVEL: 'warn',
      METRICS_TOKEN: 'metrics-token-0123456789',
      ...env,
    },
    marketplace(),
    { logDestination: { write: (line) => lines.push(line) } },
  );
  const conId: number = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json().con_id;
  await until(async () => (await rows(t)).every((d) => d.status === 'sent'));
  return { t, server, lines, conId };
}

const rows = (t: TestSouk) => t.souk.store.pusherOutbox!.list({ limit: 100 });

/** Sends a message and answers how long the request took. */
async function timedMessage(t: TestSouk, conId: number, text: string, extra: object = {}) {
  const began = performance.now();
  const reply = await t.post(MESSAGE, { con_id: conId, listing_id: LISTINGS.bike, text, ...extra }, t.auth(USERS.youssef));
  assert.equal(reply.statusCode, 200, reply.body);
  return performance.now() - began;
}

const metrics = async (t: TestSouk) =>
  (await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: 'Bearer metrics-token-0123456789' } })).body;

describe('Pusher faults', () => {
  it('down, then slow: requests do not wait, the events wait in the outbox and go once Pusher answers', async () => {
    const { t, server, conId } = await faultySouk();
    const before = server.events.length;
    server.fault({ kind: 'down' });
    assert.ok((await timedMessage(t, conId, 'while down')) < 1000);
    await until(async () => (await rows(t)).some((d) => d.status === 'pending' && d.attempts > 0));
    server.fault({ kind: 'slow', ms: 1000 });
    assert.ok((await timedMessage(t, conId, 'while slow')) < 1000);
    await until(async () => (await rows(t)).some((d) => d.lastError === 'no answer within 300 ms'));
    server.fault({ kind: 'none' });
    await until(async () => (await rows(t)).every((d) => d.status === 'sent'));
    // Both messages reached the buyer's channel: at least once (the slow server took the batch Souk gave up waiting for, and took it again).
    const texts = server
      .on(`chat-user-${USERS.amina}`)
      .filter((e) => e.name === 'message.new')
      .map((e) => JSON.parse(e.data).message.message);
    assert.deepEqual([...new Set(texts)].sort(), ['while down', 'while slow']);
    assert.ok(server.events.length > before);
    assert.match(await metrics(t), /souk_pusher_events_total\{status="retried"\} [1-9]/);
  });

  for (const status of [401, 413]) {
    it(`${status}: not retried, kept as failed, logged once with Pusher's answer and never the secret`, async () => {
      const { t, server, conId, lines } = await faultySouk();
      server.fault({ kind: 'status', status, body: `refused with ${status}` });
      await timedMessage(t, conId, 'refused');
      await until(async () => (await rows(t)).filter((d) => d.status === 'failed').length === 2);
      const failed = (await rows(t)).filter((d) => d.status === 'failed');
      assert.ok(failed.every((d) => d.attempts === 1 && d.lastError === `HTTP ${status}: refused with ${status}`));
      server.fault({ kind: 'none' });
      await new Promise((r) => setTimeout(r, 300));
      assert.equal((await rows(t)).filter((d) => d.status === 'failed').length, 2);
      const logged = lines.filter((l) => l.includes(`refused with ${status}`));
      // One line per refused event (the batch, sent again one by one to find which), none at a later look.
      assert.equal(logged.length, 2, lines.join('\n'));
      assert.ok(lines.every((l) => !l.includes(server.app.secret)));
      assert.match(await metrics(t), /souk_pusher_events_total\{status="failed"\} 2/);
    });
  }

  it('5xx and 429: retried with backoff for PUSHER_RETRY_FOR_S, then kept as failed', async () => {
    const { t, server, conId } = await faultySouk({ PUSHER_RETRY_FOR_S: '1' });
    server.fault({ kind: 'status', status: 503 });
    await timedMessage(t, conId, 'during an outage');
    await until(async () => (await rows(t)).filter((d) => d.status === 'failed').length === 2, 6000);
    const failed = (await rows(t)).filter((d) => d.status === 'failed');
    assert.ok(failed.every((d) => d.attempts > 1 && d.lastError?.startsWith('HTTP 503')));
    server.fault({ kind: 'status', status: 429 });
    await timedMessage(t, conId, 'too many');
    await until(async () => (await rows(t)).some((d) => d.status === 'pending' && d.attempts > 1));
    server.fault({ kind: 'none' });
    // The start's four events, and the two of the message sent during the 429s.
    await until(async () => (await rows(t)).filter((d) => d.status === 'sent').length === 6);
  });

  it('an event over 10 KB is sent without its attachments, counted and noted', async () => {
    const { t, server, conId } = await faultySouk();
    const files = Array.from({ length: 10 }, (_, i) => ({
      url: `https://cdn.example/${String(i).repeat(1500)}.jpg`,
      name: `photo ${i}.jpg`,
    }));
    await timedMessage(t, conId, 'many photos', { files });
    await until(async () => (await rows(t)).every((d) => d.status === 'sent'));
    const event = server.on(`chat-user-${USERS.amina}`).find((e) => e.name === 'message.new')!;
    assert.ok(Buffer.byteLength(event.data) <= 10_240);
    const { message } = JSON.parse(event.data);
    assert.equal(message.message, 'many photos');
    assert.equal(message.attachments, null);
    const trimmed = (await rows(t)).filter((d) => d.lastError !== null);
    assert.deepEqual(
      trimmed.map((d) => [d.name, d.lastError]),
      [['message.new', 'trimmed to 10240 bytes']],
    );
    const text = await metrics(t);
    assert.match(text, /souk_pusher_events_total\{status="trimmed"\} 1/);
    assert.match(text, /souk_pusher_delivery_seconds_count [1-9]/);
  });
});
