/**
 * Event streams across instances on one PostgreSQL database: an event written through one
 * instance reaches a stream held by another (LISTEN/NOTIFY), also after the listening
 * connection was lost and made again.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import pg from 'pg';
import { TEST_POSTGRES_URL } from '../helpers/database.js';
import { startTestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { SseClient } from '../helpers/sse.js';
import type { PostgresEventSignals } from '../../src/store/postgres/event-signals.js';

const EVENTS = '/wp-json/rtcl/v1/my/events';

describe('event streams across instances', { skip: TEST_POSTGRES_URL ? false : 'needs TEST_DATABASE_URL=postgres://...' }, () => {
  it('an event written on one instance reaches the stream held by the other, after a lost LISTEN connection too', async () => {
    const a = await startTestSouk();
    // The second instance on the first one's database (its fixture already imported).
    const b = await startTestSouk({ DATABASE_URL: a.database.url }, null);
    const base = await b.listen();
    const client = await SseClient.open(base + EVENTS, b.auth(USERS.youssef));
    assert.equal(client.status, 200);
    const conId = (await a.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'via a' })).json().con_id;
    assert.deepEqual(
      (await client.take(3)).map((e) => e.event),
      ['conversation.new', 'message.new', 'conversation.unread'],
    );

    // Cut b's listening connection from the server side; it reconnects, and what was written
    // meanwhile arrives (from the log, on the gap).
    const signals = b.souk.store.eventSignals as PostgresEventSignals;
    const pid = await signals.backendPid();
    assert.ok(pid);
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    await admin.query('select pg_terminate_backend($1)', [pid]);
    await admin.end();
    const sent = await a.post('/wp-json/rtcl/v1/my/chat/message', { con_id: conId, text: 'while away' }, a.auth(USERS.amina));
    assert.equal(sent.statusCode, 200);
    const [message] = await client.take(2, 10_000);
    assert.equal(JSON.parse(message!.data).message.message, 'while away');
    assert.ok(signals.connections >= 2);
    // And live again after the reconnection.
    await a.post('/wp-json/rtcl/v1/my/chat/message', { con_id: conId, text: 'back' }, a.auth(USERS.amina));
    assert.equal(JSON.parse((await client.take(2))[0]!.data).message.message, 'back');
    client.close();
  });
});
