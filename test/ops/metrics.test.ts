import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk, PATHS } from '../helpers/souk.js';

const sample = (text: string, name: string, labels: string) => {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
};

describe('GET /metrics', () => {
  it('counts requests and their latency by route pattern and status, in Prometheus text format', async () => {
    const t = await startTestSouk();
    await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    await t.toggle(USERS.amina, { listing_id: LISTINGS.table });
    await t.post(PATHS.toggle, { listing_id: 1 }, { 'x-api-key': 'wrong' });
    await t.app.inject({ url: '/wp-json/rtcl/v1/my/favourites/12345?token=abc' });
    const res = await t.app.inject({ url: '/metrics' });
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
    const t = await startTestSouk();
    await t.toggle(USERS.amina, { listing_id: LISTINGS.bike });
    const text = (await t.app.inject({ url: '/metrics' })).body;
    if (t.database.dialect === 'postgres') {
      const open = /^souk_db_pool_connections (\d+)$/m.exec(text);
      assert.ok(open && Number(open[1]) >= 1, 'at least the connection that served the toggle is open');
      assert.match(text, /^souk_db_pool_idle_connections \d+$/m);
      assert.match(text, /^souk_db_pool_waiting_requests 0$/m);
    } else {
      assert.doesNotMatch(text, /souk_db_pool/);
    }
  });

  it('needs Authorization: Bearer <METRICS_TOKEN> when that setting is set', async () => {
    const token = 'metrics-token-0123456789';
    const t = await startTestSouk({ METRICS_TOKEN: token });
    for (const authorization of [undefined, 'Bearer wrong-token', token, `Basic ${token}`]) {
      const res = await t.app.inject({ url: '/metrics', headers: authorization ? { authorization } : {} });
      assert.equal(res.statusCode, 401, String(authorization));
      assert.equal(res.headers['www-authenticate'], 'Bearer realm="metrics"');
      assert.equal(res.json().code, 'metrics_unauthorized');
    }
    const ok = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${token}` } });
    assert.equal(ok.statusCode, 200);
    assert.match(ok.body, /souk_http_requests_total/);
  });
});
