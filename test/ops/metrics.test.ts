import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk, PATHS } from '../helpers/souk.js';
import { freePort } from '../helpers/processes.js';

const TOKEN = 'metrics-token-0123456789';
const BEARER = { authorization: `Bearer ${TOKEN}` };
const NO_ROUTE = { code: 'rest_no_route', message: 'No route was found matching the URL and request method.' };

const sample = (text: string, name: string, labels: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('GET /metrics', () => {
  it('counts requests and their latency by route pattern and status, in Prometheus text format', async () => {
    const t = await startTestSouk({ METRICS_TOKEN: TOKEN });
    await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    await t.toggle(USERS.amina, { listing_id: LISTINGS.table });
    await t.post(PATHS.toggle, { listing_id: 1 }, { 'x-api-key': 'wrong' });
    await t.app.inject({ url: '/wp-json/rtcl/v1/my/favourites/12345?token=abc' });
    const res = await t.app.inject({ url: '/metrics', headers: BEARER });
    assert.equal(res.statusCode, 200);
    assert.match(String(res.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    const text = res.body;
    const toggle = `route="${PATHS.toggle}"`;
    assert.equal(sample(text, 'souk_http_requests_total', `method="POST",${toggle},status_code="200"`), 2);
    assert.equal(sample(text, 'souk_http_requests_total', `method="POST",${toggle},status_code="401"`), 1);
    // An unknown address is counted as "unmatched", never by its raw URL (label cardinality).
    assert.equal(sample(text, 'souk_http_requests_total', 'method="GET",route="unmatched",status_code="404"'), 1);
    assert.ok(!text.includes('12345') && !text.includes('token=abc'));
    assert.equal(sample(text, 'souk_http_request_duration_seconds_count', `method="POST",${toggle},status_code="200"`), 2);
    assert.equal(sample(text, 'souk_http_request_duration_seconds_bucket', `le="10",method="POST",${toggle},status_code="200"`), 2);
    assert.match(text, /^# TYPE souk_http_request_duration_seconds histogram$/m);
    // prom-client's process metrics.
    assert.match(text, /^process_cpu_user_seconds_total \d/m);
    assert.match(text, /^nodejs_eventloop_lag_seconds \d/m);
    assert.match(text, /^process_resident_memory_bytes \d/m);
  });

  it('reports the PostgreSQL pool, and no pool on SQLite', async () => {
    const t = await startTestSouk({ METRICS_TOKEN: TOKEN });
    await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    const text = (await t.app.inject({ url: '/metrics', headers: BEARER })).body;
    if (t.database.dialect === 'postgres') {
      const open = /^souk_db_pool_connections (\d+)$/m.exec(text);
      assert.ok(open && Number(open[1]) >= 1, 'at least the connection that served the toggle is open');
      assert.match(text, /^souk_db_pool_idle_connections \d+$/m);
      assert.match(text, /^souk_db_pool_waiting_requests 0$/m);
    } else {
      assert.doesNotMatch(text, /souk_db_pool/);
    }
  });

  it('is off on the API port by default: 404 in shape A, nothing about the process', async () => {
    const t = await startTestSouk();
    const base = await t.listen();
    for (const headers of [{}, BEARER]) {
      const res = await fetch(`${base}/metrics`, { headers });
      assert.equal(res.status, 404);
      assert.deepEqual(await res.json(), NO_ROUTE);
    }
  });

  it('on the API port, needs Authorization: Bearer <METRICS_TOKEN> when that setting is set', async () => {
    const t = await startTestSouk({ METRICS_TOKEN: TOKEN });
    const base = await t.listen();
    for (const authorization of [undefined, 'Bearer wrong-token', TOKEN, `Basic ${TOKEN}`]) {
      const res = await fetch(`${base}/metrics`, { headers: authorization ? { authorization } : {} });
      assert.equal(res.status, 401, String(authorization));
      assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="metrics"');
      assert.equal(((await res.json()) as { code: string }).code, 'metrics_unauthorized');
    }
    const ok = await fetch(`${base}/metrics`, { headers: BEARER });
    assert.equal(ok.status, 200);
    assert.match(await ok.text(), /souk_http_requests_total/);
  });

  it('METRICS_PORT serves them on a port of its own, without a token, and only them; the API port still answers 404', async () => {
    const port = await freePort();
    const t = await startTestSouk({ METRICS_PORT: String(port) });
    const base = await t.listen();
    await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    const res = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('cache-control'), 'no-store');
    const text = await res.text();
    assert.equal(sample(text, 'souk_http_requests_total', `method="POST",route="${PATHS.toggle}",status_code="200"`), 1);
    assert.match(text, /^process_resident_memory_bytes \d/m);
    const elsewhere = await fetch(`http://127.0.0.1:${port}${PATHS.toggle}`);
    assert.equal(elsewhere.status, 404);
    assert.deepEqual(await elsewhere.json(), NO_ROUTE);
    const api = await fetch(`${base}/metrics`);
    assert.equal(api.status, 404);
    assert.deepEqual(await api.json(), NO_ROUTE);
    // Closed with the app.
    await t.close();
    await assert.rejects(fetch(`http://127.0.0.1:${port}/metrics`));
  });

  it('METRICS_PORT with METRICS_TOKEN needs the token there too', async () => {
    const port = await freePort();
    const t = await startTestSouk({ METRICS_PORT: String(port), METRICS_TOKEN: TOKEN });
    await t.listen();
    const refused = await fetch(`http://127.0.0.1:${port}/metrics`);
    assert.equal(refused.status, 401);
    assert.equal(refused.headers.get('www-authenticate'), 'Bearer realm="metrics"');
    assert.equal((await fetch(`http://127.0.0.1:${port}/metrics`, { headers: BEARER })).status, 200);
  });

  it('a METRICS_PORT already in use stops start-up', async () => {
    const port = await freePort();
    const first = await startTestSouk({ METRICS_PORT: String(port) });
    await first.listen();
    const second = await startTestSouk({ METRICS_PORT: String(port) });
    await assert.rejects(second.listen(), /EADDRINUSE/);
  });
});
