/**
 * Real replies of both operations, success and every error the interface names, checked against the
 * response schemas of the OpenAPI document (Ajv, JSON Schema 2020-12 as OpenAPI 3.1 uses), and each
 * error body against the document's examples for its status, byte for byte.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Ajv2020Module from 'ajv/dist/2020.js';
import type { LightMyRequestResponse } from 'fastify';
import { signToken } from '../../src/auth/jwt.js';
import { hashPassword } from '../../src/auth/passwords.js';
import { generateOpenApi } from '../../scripts/openapi.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { PATHS, startTestSouk, type TestSouk } from '../helpers/souk.js';

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;

interface Doc {
  paths: Record<
    string,
    Record<'get' | 'post', { responses: Record<string, { content: Record<string, { examples?: Record<string, { value: unknown }> }> }> }>
  >;
  components: { schemas: Record<string, { properties: Record<string, unknown> }> };
}

const doc = JSON.parse(await generateOpenApi()) as Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(doc, 'openapi.json');

const pointer = (path: string) => path.replaceAll('~', '~0').replaceAll('/', '~1');

/** Checks one reply against its operation's documented response for that status. */
function assertDocumented(path: string, res: LightMyRequestResponse, expectedStatus: number, method: 'get' | 'post' = 'post'): void {
  assert.equal(res.statusCode, expectedStatus, res.body);
  const status = String(res.statusCode);
  const response = doc.paths[path]?.[method].responses[status];
  assert.ok(response, `${path} documents status ${status}`);
  assert.match(String(res.headers['content-type']), /^application\/json/);
  assert.ok(res.headers['x-request-id'], 'the reply carries X-Request-Id, as documented');
  const validate = ajv.getSchema(`openapi.json#/paths/${pointer(path)}/${method}/responses/${status}/content/application~1json/schema`);
  assert.ok(validate, `schema of ${path} ${status}`);
  const body: unknown = res.json();
  assert.ok(validate(body), `${path} ${status}: ${res.body}\n${ajv.errorsText(validate.errors)}`);
  if (res.statusCode >= 400) {
    // The keys come in the order of the documented shape (the interface's order), not just the same set.
    const keys = Object.keys(body as object);
    const shapes = Object.values(doc.components.schemas).map((shape) => Object.keys(shape.properties));
    const shape = shapes.find((order) => [...order].sort().join() === [...keys].sort().join());
    assert.deepEqual(keys, shape, `${path} ${status}: keys of ${res.body} in the documented order`);
    // An error reply is one of the documented examples, with its keys in the same order on the wire.
    const examples = Object.values(response.content['application/json']?.examples ?? {}).map((e) => JSON.stringify(e.value));
    assert.ok(examples.includes(res.body), `${path} ${status}: ${res.body} is not among the documented examples:\n${examples.join('\n')}`);
  }
}

// One Souk for the whole file (startTestSouk closes it after the file's tests).
const t: TestSouk = await startTestSouk();

describe('replies match the OpenAPI document', () => {
  const otherSecret = 'x'.repeat(43);
  const headers = (userId: number, over: Record<string, string | undefined> = {}) => ({ ...t.auth(userId), ...over });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  for (const [name, path] of [
    ['toggle', PATHS.toggle],
    ['start conversation', PATHS.start],
  ] as const) {
    const body = path === PATHS.toggle ? { listing_id: LISTINGS.bike } : { listing_id: LISTINGS.bike, text: 'Hello' };

    it(`${name}: 200`, async () => {
      assertDocumented(path, await t.post(path, body, headers(USERS.amina)), 200);
    });

    it(`${name}: 400 BADREQUEST (listing_id, listing not found, invalid JSON)`, async () => {
      const extra = path === PATHS.toggle ? {} : { text: 'Hello' };
      assertDocumented(path, await t.post(path, { listing_id: 'abc', ...extra }, headers(USERS.amina)), 400);
      assertDocumented(path, await t.post(path, { listing_id: 999, ...extra }, headers(USERS.amina)), 400);
      assertDocumented(path, await t.post(path, '{"listing_id":', headers(USERS.amina)), 400);
    });

    it(`${name}: 401 for each API key and token failure`, async () => {
      const cases: Array<Record<string, string | undefined>> = [
        { 'x-api-key': undefined },
        { 'x-api-key': 'not-the-key' },
        { authorization: 'Basic dXNlcjpwYXNz' },
        bearer('not-a-jwt'),
        bearer(signToken({ ...t.tokenKeys, jwtSecret: otherSecret }, USERS.amina, 'amina', 3600)),
        bearer(signToken(t.tokenKeys, USERS.amina, 'amina', -120)),
      ];
      if (path === PATHS.start) cases.push({ authorization: undefined });
      for (const over of cases) assertDocumented(path, await t.post(path, body, headers(USERS.amina, over)), 401);
    });

    it(`${name}: 403 FORBIDDEN`, async () => {
      if (path === PATHS.toggle) assertDocumented(path, await t.post(path, body, headers(USERS.amina, { authorization: undefined })), 403);
      assertDocumented(path, await t.post(path, body, headers(USERS.disabled)), 403);
      if (path === PATHS.start)
        assertDocumented(path, await t.post(path, { listing_id: LISTINGS.aminasOwn, text: 'Hi' }, headers(USERS.amina)), 403);
    });

    it(`${name}: 404 rest_no_route (an address under {api_base} with no operation)`, async () => {
      const res = await t.post(`${path}/nope`, body, headers(USERS.amina));
      assertDocumented(path, res, 404);
    });

    it(`${name}: 413 PAYLOAD_TOO_LARGE`, async () => {
      const big = JSON.stringify({ ...body, padding: 'x'.repeat(t.config.bodyLimit) });
      assertDocumented(path, await t.post(path, big, headers(USERS.amina)), 413);
    });
  }

  it('start conversation: 403 DENIED_REST_API (shape C) when the REST interface is disabled', async () => {
    await t.souk.store.settings.set('rest_api', 'false');
    await t.souk.settings.refresh();
    try {
      assertDocumented(PATHS.start, await t.post(PATHS.start, { listing_id: LISTINGS.bike, text: 'Hi' }, headers(USERS.amina)), 403);
    } finally {
      await t.souk.store.settings.set('rest_api', 'true');
      await t.souk.settings.refresh();
    }
  });
});

describe('sign-in, sign-out and GET my replies match the OpenAPI document', () => {
  const LOGIN = '/wp-json/rtcl/v1/login';
  const LOGOUT = '/wp-json/rtcl/v1/logout';
  const MY = '/wp-json/rtcl/v1/my';
  const signIn = (body: object, headers: Record<string, string> = { 'x-api-key': t.apiKey }) =>
    t.app.inject({ method: 'POST', url: LOGIN, payload: body, headers, remoteAddress: '192.0.2.77' });

  it('documents every reply of POST login, GET my and POST logout', async (t0) => {
    const password = 'contract-pass-1';
    t0.after(() => t.souk.store.db.deleteFrom('user_credentials').execute());
    await t.souk.store.accounts.setPasswordHash(USERS.sara, await hashPassword(password));
    const ok = await signIn({ username: 'sara', password });
    assertDocumented(LOGIN, ok, 200);
    assertDocumented(LOGIN, await signIn({ username: 'sara', password: 'wrong' }), 400);
    assertDocumented(LOGIN, await signIn({ username: 'sara' }), 400);
    assertDocumented(LOGIN, await signIn({ username: 'sara', password }, {}), 401);
    const token = ok.json().jwt_token as string;
    const member = { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey };
    assertDocumented(MY, await t.app.inject({ method: 'GET', url: MY, headers: member }), 200, 'get');
    assertDocumented(MY, await t.app.inject({ method: 'GET', url: MY, headers: { 'x-api-key': t.apiKey } }), 401, 'get');
    assertDocumented(LOGOUT, await t.app.inject({ method: 'POST', url: LOGOUT, headers: member }), 200);
    assertDocumented(LOGOUT, await t.app.inject({ method: 'POST', url: LOGOUT, headers: member }), 401);
  });
});

describe('GET my/favourites replies match the OpenAPI document', () => {
  const get = (souk: TestSouk, query = '', headers: Record<string, string> = souk.auth(USERS.sara)) =>
    souk.app.inject({ method: 'GET', url: `${PATHS.toggle}${query}`, headers });

  it('documents the list in both generations, the empty list and every refusal', async () => {
    const classic = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' });
    for (const souk of [t, classic]) {
      assertDocumented(PATHS.toggle, await get(souk), 200, 'get');
      await souk.toggle(USERS.sara, { listing_id: LISTINGS.bike });
      const listed = await get(souk);
      assertDocumented(PATHS.toggle, listed, 200, 'get');
      assert.equal(listed.json().data.length, 1);
    }
    assertDocumented(PATHS.toggle, await get(t, '?page=0'), 400, 'get');
    assertDocumented(PATHS.toggle, await get(t, '?per_page=x'), 400, 'get');
    assertDocumented(PATHS.toggle, await get(t, '?per_page=101'), 400, 'get');
    assertDocumented(PATHS.toggle, await get(t, '', { 'x-api-key': t.apiKey }), 401, 'get');
    assertDocumented(PATHS.toggle, await get(t, '', t.auth(USERS.disabled)), 403, 'get');
  });
});
