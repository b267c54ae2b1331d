import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { request, Agent } from 'node:http';
import { startTestSouk } from '../helpers/souk.js';

describe('GET /healthz and GET /readyz', () => {
  it('answer without API key or token, outside {api_base}', async () => {
    const t = await startTestSouk();
    const live = await t.app.inject({ url: '/healthz' });
    assert.equal(live.statusCode, 200);
    assert.deepEqual(live.json(), { status: 'ok' });
    assert.equal(live.headers['cache-control'], 'no-store');
    const ready = await t.app.inject({ url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(ready.json(), { status: 'ready', database: 'ok', migrations: 'applied' });
  });

  it('/readyz answers 503 while a migration is not applied', async () => {
    const t = await startTestSouk();
    await t.souk.store.db.deleteFrom('souk_migrations' as never).execute();
    const res = await t.app.inject({ url: '/readyz' });
    assert.equal(res.statusCode, 503);
    assert.deepEqual(res.json(), { status: 'not_ready', database: 'ok', migrations: 'pending' });
    assert.equal((await t.app.inject({ url: '/healthz' })).statusCode, 200, 'the process itself is alive');
  });

  it('/readyz answers 503 when the database cannot be reached', async () => {
    const t = await startTestSouk();
    await t.souk.store.db.destroy();
    const res = await t.app.inject({ url: '/readyz' });
    assert.equal(res.statusCode, 503);
    assert.deepEqual(res.json(), { status: 'not_ready', database: 'unreachable', migrations: 'unknown' });
  });

  it('keep the connection open for the next request (a bodiless request is whole once its head is)', async () => {
    const t = await startTestSouk();
    const base = new URL(await t.listen());
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = (path: string) =>
      new Promise<{ connection: string | undefined; socket: unknown }>((resolve, reject) => {
        const req = request({ host: base.hostname, port: base.port, path, agent }, (res) => {
          res.resume();
          res.on('end', () => resolve({ connection: res.headers.connection, socket: req.socket }));
        });
        req.on('error', reject).end();
      });
    const first = await get('/healthz');
    const second = await get('/wp-json/no-such-route');
    agent.destroy();
    assert.equal(first.connection, 'keep-alive');
    assert.equal(second.connection, 'keep-alive');
    assert.equal(second.socket, first.socket, 'the second request reused the connection');
  });
});
