import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { LISTINGS, marketplace, USERS } from '../helpers/fixtures.js';
import { startTestSouk, PATHS } from '../helpers/souk.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function capture() {
  const chunks: string[] = [];
  return { chunks, destination: { write: (line: string) => void chunks.push(line) } };
}

describe('request logs', () => {
  it('write one JSON line per request with request id, method, route, path, status and duration', async () => {
    const log = capture();
    const t = await startTestSouk({ LOG_LEVEL: 'info' }, marketplace(), { logDestination: log.destination });
    const replies = [
      await t.post(PATHS.toggle, { listing_id: LISTINGS.bike }, { ...t.auth(USERS.amina), 'x-request-id': 'client-req.42' }),
      await t.post(
        `${PATHS.start}?debug=1`,
        { listing_id: LISTINGS.bike, text: 'Hi' },
        { ...t.auth(USERS.amina), 'x-request-id': 'not acceptable!' },
      ),
      await t.post(PATHS.toggle, { listing_id: 1 }, { 'x-api-key': 'wrong' }),
      await t.app.inject({ url: '/nowhere?x=1', headers: { 'x-request-id': 'x'.repeat(129) } }),
      await t.app.inject({ url: '/healthz' }),
    ];
    const lines = log.chunks
      .join('')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      // The start-up's own lines (what is on, what is off) are not the requests'.
      .filter((l) => l.msg === 'request');
    assert.equal(lines.length, replies.length, log.chunks.join(''));
    const ids = replies.map((r) => r.headers['x-request-id']);
    assert.equal(ids[0], 'client-req.42', 'an acceptable incoming id is kept and echoed');
    for (const id of ids.slice(1)) assert.match(String(id), UUID, 'a missing or unacceptable id is replaced by a random one');
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(
      lines.map((l) => [l.reqId, l.method, l.route, l.path, l.statusCode, l.msg]),
      [
        [ids[0], 'POST', PATHS.toggle, PATHS.toggle, 200, 'request'],
        [ids[1], 'POST', PATHS.start, PATHS.start, 200, 'request'],
        [ids[2], 'POST', PATHS.toggle, PATHS.toggle, 401, 'request'],
        [ids[3], 'GET', 'unmatched', '/nowhere', 404, 'request'],
        [ids[4], 'GET', '/healthz', '/healthz', 200, 'request'],
      ],
    );
    for (const line of lines) {
      assert.equal(line.client, '127.0.0.1');
      assert.equal(typeof line.durationMs, 'number');
      assert.equal(line.level, 30);
    }
  });

  it('cut a long path to 512 characters with a marker, and carry the client address, over a real socket', async () => {
    const log = capture();
    // A head limit raised by the operator lets a 120 KB address through to the 404.
    const t = await startTestSouk({ LOG_LEVEL: 'info', MAX_HEADER_SIZE: '131072' }, marketplace(), { logDestination: log.destination });
    const base = await t.listen();
    const long = `/${'a'.repeat(120_000)}`;
    const res = await fetch(`${base}${long}?secret=1`);
    assert.equal(res.status, 404);
    const served = await fetch(`${base}/healthz`);
    assert.equal(served.status, 200);
    const requestLines = () =>
      log.chunks
        .join('')
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as Record<string, unknown>)
        .filter((l) => l.msg === 'request');
    // A line is written once its reply has been sent, which the client may see first.
    while (requestLines().length < 2) await new Promise((resolve) => setImmediate(resolve));
    const lines = requestLines();
    assert.equal(lines.length, 2, log.chunks.join('').slice(0, 2000));
    const [cut, short] = lines as [Record<string, unknown>, Record<string, unknown>];
    assert.equal(cut.path, `${long.slice(0, 512)}…[${long.length - 512} more characters]`);
    assert.equal(cut.reqId, res.headers.get('x-request-id'));
    assert.ok(
      log.chunks.every((chunk) => chunk.length < 2000),
      'no log line holds the whole address',
    );
    assert.equal(short.path, '/healthz');
    for (const line of lines) assert.equal(line.client, '127.0.0.1');
  });

  it('write no request line at LOG_LEVEL=warn, and one at debug', async () => {
    for (const [level, expected] of [
      ['warn', 0],
      ['debug', 1],
    ] as const) {
      const log = capture();
      const t = await startTestSouk({ LOG_LEVEL: level }, marketplace(), { logDestination: log.destination });
      assert.equal((await t.post(PATHS.toggle, { listing_id: LISTINGS.bike }, t.auth(USERS.amina))).statusCode, 200);
      const lines = log.chunks
        .join('')
        .trim()
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { msg: string });
      assert.equal(lines.filter((l) => l.msg === 'request').length, expected, `LOG_LEVEL=${level}: ${log.chunks.join('')}`);
    }
  });

  it('never contain the token, the API key, the JWT secret or the message text', async () => {
    const log = capture();
    const t = await startTestSouk({ LOG_LEVEL: 'trace' }, marketplace(), { logDestination: log.destination });
    const text = 'A private message: my phone is +212 611 22 33 44';
    const token = t.token(USERS.amina);
    const headers = { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey };
    assert.equal((await t.post(PATHS.start, { listing_id: LISTINGS.bike, text }, headers)).statusCode, 200);
    assert.equal(
      (
        await t.post(PATHS.start, `listing_id=${LISTINGS.bike}&text=${encodeURIComponent(text)}`, {
          ...headers,
          'content-type': 'application/x-www-form-urlencoded',
        })
      ).statusCode,
      200,
    );
    assert.equal((await t.post(PATHS.start, { listing_id: 'bad', text }, headers)).statusCode, 400);
    assert.equal(
      (await t.post(PATHS.start, { listing_id: LISTINGS.bike, text }, { ...headers, authorization: `Bearer ${token}x` })).statusCode,
      401,
    );
    assert.equal((await t.post(PATHS.toggle, { listing_id: LISTINGS.bike }, headers)).statusCode, 200);
    const all = log.chunks.join('');
    assert.ok(all.length > 0);
    for (const secret of [token, token.split('.')[2] as string, t.apiKey, t.jwtSecret, text, 'private message', encodeURIComponent(text)]) {
      assert.ok(!all.includes(secret), `the logs contain ${secret}`);
    }
    assert.doesNotMatch(all, /authorization|x-api-key/i);
  });

  it('are readable lines, not JSON, with LOG_PRETTY=true', async () => {
    const chunks: string[] = [];
    const sink = new Writable({
      write: (chunk, _enc, done) => {
        chunks.push(String(chunk));
        done();
      },
    });
    const t = await startTestSouk({ LOG_LEVEL: 'info', LOG_PRETTY: 'true' }, marketplace(), { logDestination: sink });
    await t.app.inject({ url: '/healthz', headers: { 'x-request-id': 'pretty-1' } });
    await new Promise((resolve) => setImmediate(resolve));
    const out = chunks
      .join('')
      .split('\n')
      .filter((l) => l.includes('request'))
      .join('\n');
    assert.equal(out.trim().split('\n').length, 1, chunks.join(''));
    assert.match(
      out,
      /^\[[\d:.]+\] INFO: request \{"reqId":"pretty-1","client":"127.0.0.1","method":"GET","route":"\/healthz","path":"\/healthz","statusCode":200,"durationMs":[\d.]+\}$/m,
    );
  });
});
