/**
 * Hostile input on the server API (docs/server-api.md), property-based (fast-check) over a real
 * socket, as test/http/hostile-input.test.ts does for the app's routes: generated ids in the path (a delivery's too),
 * query strings, JSON bodies (any JSON, import entries with odd values, broken text) and keys. Every
 * reply is a 200 or a documented refusal in shape B (shape A for no route); never a 5xx or a hang;
 * and the server still serves after.
 *
 * HOSTILE_SCALE (default 1) multiplies the number of runs; FC_SEED picks the seed (test/helpers/property.ts).
 */
import { after, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { newServerKey, serverKeyDigest } from '../../src/auth/server-keys.js';
import { startTestSouk } from '../helpers/souk.js';
import { propertySeed } from '../helpers/property.js';

const SCALE = Number(process.env.HOSTILE_SCALE ?? 1);
const SEED = propertySeed();
const runs = (n: number) => Math.max(1, Math.round(n * SCALE));

// Thousands of refused keys come from 127.0.0.1: the throttles would hide the answers under test.
const t = await startTestSouk({ RATE_LIMIT_AUTH_FAILURES: '0', SERVER_API_RATE_LIMIT: '0', SERVER_API_IMPORT_LIMIT: '65536' });
const base = `${await t.listen()}/souk/v1`;
const key = newServerKey();
await t.souk.store.serverKeys.add('fuzz', serverKeyDigest(key), Date.now());
await t.souk.serverKeys.refresh();
after(() => console.log(`# hostile input (server API): seed ${SEED} (FC_SEED=${SEED} replays it)`));

const ROUTES = [
  ['PUT', '/users/{id}'],
  ['DELETE', '/users/{id}'],
  ['POST', '/users/{id}/disable'],
  ['POST', '/users/{id}/enable'],
  ['GET', '/users/{id}/export'],
  ['POST', '/users/{id}/tokens'],
  ['PUT', '/listings/{id}'],
  ['DELETE', '/listings/{id}'],
  ['POST', '/import'],
  ['GET', '/reports'],
  ['POST', '/reports/{id}/close'],
  ['DELETE', '/messages/{id}'],
  ['GET', '/deliveries'],
  ['POST', '/deliveries/{id}/retry'],
] as const;

/** Statuses a route may answer; 413 for a large body, 404 for an unknown id or a path no route has. */
const DOCUMENTED = new Set([200, 400, 401, 404, 409, 413]);

const idArb = fc
  .oneof(
    fc.integer({ min: 1, max: 120 }).map(String),
    fc.constantFrom('0', '-1', '1.5', '1e3', '9007199254740993', '99999999999999999999', '%20', 'abc', '', '%00'),
    fc.string({ maxLength: 30 }).map(encodeURIComponent),
    fc
      .tuple(
        fc.constantFrom('webhook', 'mail', 'push', 'pusher', 'sms'),
        fc.constantFrom(':', '%3A', '%3a'),
        fc.constantFrom('1', '0', '-1', 'x'),
      )
      .map((p) => p.join('')),
    // A dot segment (`..`, `%2e`) is resolved by the client into another path, which no route of the API has.
  )
  .filter((id) => !/^(\.|%2e){1,2}$/i.test(id));

const oddValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom(
    '\u0000',
    'x'.repeat(20_000),
    '2026-02-30T10:00:00Z',
    '$2y$31$abcdefghijklmnopqrstuuabcdefghijklmnopqrstuvwxyzABCDE',
    -1,
    1e308,
    null,
  ),
);

const entryArb = fc.record(
  {
    id: fc.oneof(fc.integer({ min: 1, max: 120 }), oddValue),
    login: fc.oneof(fc.string({ minLength: 1, maxLength: 20 }), oddValue),
    owner_id: fc.oneof(fc.integer({ min: 1, max: 6 }), oddValue),
    title: fc.oneof(fc.string({ maxLength: 40 }), oddValue),
    status: fc.oneof(fc.constantFrom('publish', 'draft', 'trash', 'sold'), oddValue),
    registered: oddValue,
    password_hash: oddValue,
    images: oddValue,
    reason: oddValue,
    ttl: fc.oneof(fc.integer({ min: -10, max: 40 * 86_400 }), oddValue),
  },
  { requiredKeys: [] },
);

const bodyArb = fc.oneof(
  entryArb.map((e) => JSON.stringify(e)),
  fc.record({ users: fc.array(entryArb, { maxLength: 3 }), listings: fc.array(entryArb, { maxLength: 3 }) }).map((d) => JSON.stringify(d)),
  fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)),
  fc.constantFrom('', '{', '[1,', '{"__proto__": {"x": 1}}', 'null', '"text"', `{"users": ${'['.repeat(40)}${']'.repeat(40)}}`),
  fc.string({ maxLength: 200 }),
);

const queryArb = fc.dictionary(
  fc.constantFrom('reason', 'kind', 'status', 'limit', 'cursor', 'x'),
  fc.oneof(fc.string({ maxLength: 30 }), fc.constantFrom('webhook', 'mail', 'push', 'pusher', 'failed', 'sent')),
  { maxKeys: 3 },
);

const authArb = fc.oneof(
  { weight: 8, arbitrary: fc.constant(`Bearer ${key}`) },
  { weight: 1, arbitrary: fc.constantFrom(undefined, `Bearer ${t.apiKey}`, `Bearer ${t.token(1)}`, key, `Bearer ${key}x`, 'Bearer sk_') },
);

const isShapeB = (body: any) =>
  body !== null && typeof body === 'object' && Object.keys(body).join() === 'status,error,code,error_message' && body.status === 'error';

/** fc.assert, with the failing assertion's message in the report and giant counterexamples cut short. */
async function check<T extends unknown[]>(property: fc.IAsyncProperty<T>, numRuns: number): Promise<void> {
  try {
    await fc.assert(property, { numRuns, seed: SEED, endOnFailure: true });
  } catch (err) {
    const cause = (err as Error).cause;
    const why = cause instanceof Error ? cause.message : String(cause ?? '');
    throw new Error(`${(err as Error).message.slice(0, 4000)}\n--- failure: ${why.slice(0, 4000)}`, { cause: err });
  }
}

describe('hostile input on the server API', () => {
  it('answers every generated request with a 200 or a documented refusal, never a 5xx', async () => {
    let answered = 0;
    await check(
      fc.asyncProperty(
        fc.constantFrom(...ROUTES),
        idArb,
        queryArb,
        bodyArb,
        fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain'),
        authArb,
        async ([method, template], id, query, body, type, authorization) => {
          const path = template.replace('{id}', id);
          const search = new URLSearchParams(query).toString();
          const res = await fetch(`${base}${path}${search ? `?${search}` : ''}`, {
            method,
            headers: { 'content-type': type, ...(authorization === undefined ? {} : { authorization }) },
            ...(method === 'GET' ? {} : { body }),
            signal: AbortSignal.timeout(20_000),
          });
          const text = await res.text();
          const where = `${method} ${path}?${search} ${type} ${body.slice(0, 300)} -> ${res.status} ${text.slice(0, 300)}`;
          assert.ok(DOCUMENTED.has(res.status), `undocumented status: ${where}`);
          const reply = JSON.parse(text);
          if (res.status === 200) answered++;
          else if (res.status === 404 && reply.code === 'rest_no_route')
            assert.equal(reply.message, 'No route was found matching the URL and request method.');
          else assert.ok(isShapeB(reply), `not shape B: ${where}`);
          const noRoute = res.status === 404 && reply.code === 'rest_no_route';
          if (authorization !== `Bearer ${key}` && !noRoute) assert.equal(res.status, 401, `a request without the key: ${where}`);
        },
      ),
      runs(800),
    );
    assert.ok(answered > 0, 'some requests were answered 200');
    const reports = await fetch(`${base}/reports`, { headers: { authorization: `Bearer ${key}` } });
    assert.equal(reports.status, 200, 'the server still serves');
  });
});
