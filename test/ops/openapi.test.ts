import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import Ajv2020Module from 'ajv/dist/2020.js';
import { generateOpenApi, OPENAPI_FILE } from '../../scripts/openapi.js';
import { generateRecordedReplies, RECORDED_REPLIES_FILE } from '../../scripts/recorded-replies.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { SseClient } from '../helpers/sse.js';
import { shapeOf } from '../helpers/recordings.js';
import { startTestSouk, PATHS } from '../helpers/souk.js';

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;

interface Operation {
  operationId: string;
  security: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string }>;
  requestBody: { content: Record<string, unknown> };
  responses: Record<
    string,
    {
      description: string;
      headers?: Record<string, unknown>;
      content: Record<string, { example?: unknown; examples?: Record<string, { value: Record<string, unknown> }> }>;
    }
  >;
}

const generated = await generateOpenApi();
const doc = JSON.parse(generated) as {
  openapi: string;
  paths: Record<string, { post: Operation; get?: Operation; put?: Operation; delete?: Operation }>;
  components: { securitySchemes: Record<string, Record<string, string>>; schemas: Record<string, unknown> };
};

const LOGIN = '/wp-json/rtcl/v1/login';
const LOGOUT = '/wp-json/rtcl/v1/logout';
const MY = '/wp-json/rtcl/v1/my';
const CHATS = '/wp-json/rtcl/v1/my/chat';
const CHECK = '/wp-json/rtcl/v1/my/chat/check';
const MESSAGE = '/wp-json/rtcl/v1/my/chat/message';
const EVENTS = '/wp-json/rtcl/v1/my/events';
const TICKET = '/wp-json/rtcl/v1/my/events/ticket';
const PUSH_REGISTER = '/wp-json/rtcl/v1/push-notification/register';
const PUSHER_AUTH = '/wp-json/rtcl/v1/pusher/auth';
const CHAT_REPORT = '/wp-json/rtcl/v1/my/chat/report';
const OFFER = '/wp-json/rtcl/v1/my/chat/offer';
const OFFER_RESPOND = '/wp-json/rtcl/v1/my/chat/offer/respond';
const LISTING_REPORT = '/wp-json/rtcl/v1/listing/report';
const USER_BLOCK = '/wp-json/rtcl/v1/privacy/user/block';
const LISTING_BLOCK = '/wp-json/rtcl/v1/privacy/listing/block';
const PUSH_ADD_DEVICE = '/wp-json/rtcl/v1/push-notification/add-device';
const CONFIG = '/wp-json/rtcl/v1/config';
const NOTIFICATIONS = '/wp-json/rtcl/v1/my/notifications';
const PRESENCE = '/wp-json/rtcl/v1/my/chat/presence';
const UNSUBSCRIBE = '/wp-json/rtcl/v1/mail/unsubscribe';

const errorCodes = (op: Operation, status: string) =>
  Object.values(op.responses[status]?.content['application/json']?.examples ?? {}).map((e) => String(e.value.error ?? e.value.code));

/** The server API's paths (docs/server-api.md), under SERVER_API_PREFIX whatever API_PREFIX says. */
const SERVER_PATHS = [
  '/souk/v1/deliveries',
  '/souk/v1/deliveries/{id}/retry',
  '/souk/v1/import',
  '/souk/v1/listings/{id}',
  '/souk/v1/messages/{id}',
  '/souk/v1/reports',
  '/souk/v1/reports/{id}/close',
  '/souk/v1/users/{id}',
  '/souk/v1/users/{id}/disable',
  '/souk/v1/users/{id}/enable',
  '/souk/v1/users/{id}/export',
  '/souk/v1/users/{id}/tokens',
];
describe('OpenAPI document', () => {
  it('is committed up to date in docs/openapi.json (run npm run openapi when this fails)', () => {
    assert.equal(readFileSync(OPENAPI_FILE, 'utf8'), generated, 'docs/openapi.json is stale: run npm run openapi');
  });

  it('is a valid OpenAPI 3.1 document (@seriousme/openapi-schema-validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(JSON.parse(generated));
    assert.deepEqual(result.errors, undefined);
    assert.equal(result.valid, true);
    assert.equal(validator.version, '3.1');
  });

  it('is served at {api_base}/openapi.json and /docs/json, the same as the generated one', async () => {
    const t = await startTestSouk();
    for (const url of ['/wp-json/rtcl/v1/openapi.json', '/docs/json']) {
      const res = await t.app.inject({ url });
      assert.equal(res.statusCode, 200, url);
      assert.deepEqual(res.json(), doc, url);
    }
  });

  it('follows API_PREFIX', async () => {
    const t = await startTestSouk({ API_PREFIX: '/api' });
    const res = await t.app.inject({ url: '/api/v1/openapi.json' });
    assert.deepEqual(Object.keys(res.json().paths).sort(), [
      '/api/v1/config',
      '/api/v1/listing/report',
      '/api/v1/login',
      '/api/v1/logout',
      '/api/v1/mail/unsubscribe',
      '/api/v1/my',
      '/api/v1/my/chat',
      '/api/v1/my/chat/check',
      '/api/v1/my/chat/conversation',
      '/api/v1/my/chat/message',
      '/api/v1/my/chat/offer',
      '/api/v1/my/chat/offer/respond',
      '/api/v1/my/chat/presence',
      '/api/v1/my/chat/report',
      '/api/v1/my/chat/typing',
      '/api/v1/my/events',
      '/api/v1/my/events/ticket',
      '/api/v1/my/favourites',
      '/api/v1/my/notifications',
      '/api/v1/privacy/listing/block',
      '/api/v1/privacy/user/block',
      '/api/v1/push-notification/add-device',
      '/api/v1/push-notification/register',
      '/api/v1/pusher/auth',
      ...SERVER_PATHS,
    ]);
  });

  it('documents the server API under its own tag, with the server key as its security scheme and examples', () => {
    for (const path of SERVER_PATHS) {
      for (const [method, operation] of Object.entries(doc.paths[path] as Record<string, any>)) {
        assert.deepEqual(operation.tags, ['server'], `${method} ${path}`);
        assert.deepEqual(operation.security, [{ serverKey: [] }], `${method} ${path}`);
        const ok = operation.responses['200'].content['application/json'];
        assert.ok(ok.schema.examples ?? ok.examples ?? ok.example, `${method} ${path} has an example reply`);
        assert.ok(operation.responses['401'], `${method} ${path} documents the key's refusal`);
      }
    }
    assert.equal((doc.components.securitySchemes as Record<string, { scheme?: string }>).serverKey?.scheme, 'bearer');
    assert.ok((doc as unknown as { tags: Array<{ name: string }> }).tags.some((tag) => tag.name === 'server'));
  });

  it('documents the two operations and the routes around them, with their credentials as security schemes', () => {
    assert.deepEqual(Object.keys(doc.paths).sort(), [
      ...SERVER_PATHS,
      CONFIG,
      LISTING_REPORT,
      LOGIN,
      LOGOUT,
      UNSUBSCRIBE,
      MY,
      CHATS,
      CHECK,
      PATHS.start,
      MESSAGE,
      OFFER,
      OFFER_RESPOND,
      PRESENCE,
      CHAT_REPORT,
      '/wp-json/rtcl/v1/my/chat/typing',
      EVENTS,
      TICKET,
      PATHS.toggle,
      NOTIFICATIONS,
      LISTING_BLOCK,
      USER_BLOCK,
      PUSH_ADD_DEVICE,
      PUSH_REGISTER,
      PUSHER_AUTH,
    ]);
    assert.deepEqual(doc.paths[EVENTS]!.get!.security, [{ bearerAuth: [], apiKey: [] }, { eventTicket: [] }], 'a ticket or the headers');
    assert.deepEqual(doc.paths[LOGIN]!.post.security, [{ apiKey: [] }], 'sign-in needs the API key only');
    assert.deepEqual(doc.paths[CONFIG]!.get!.security, [{ apiKey: [] }], 'config needs the API key only');
    for (const [path, method] of [
      [LOGOUT, 'post'],
      [MY, 'get'],
      [PATHS.toggle, 'get'],
      [CHATS, 'get'],
      [CHECK, 'get'],
      [PATHS.start, 'get'],
      [PATHS.start, 'delete'],
      [MESSAGE, 'post'],
      [MESSAGE, 'put'],
      [TICKET, 'post'],
      [PUSH_REGISTER, 'post'],
      [PUSH_ADD_DEVICE, 'post'],
      [PUSHER_AUTH, 'post'],
      [CHAT_REPORT, 'post'],
      [LISTING_REPORT, 'post'],
      [NOTIFICATIONS, 'get'],
      [NOTIFICATIONS, 'put'],
      [USER_BLOCK, 'get'],
      [USER_BLOCK, 'post'],
      [USER_BLOCK, 'delete'],
      [LISTING_BLOCK, 'get'],
      [LISTING_BLOCK, 'post'],
      [LISTING_BLOCK, 'delete'],
    ] as const) {
      assert.deepEqual(doc.paths[path]![method]!.security, [{ bearerAuth: [], apiKey: [] }], path);
    }
    assert.deepEqual(doc.components.securitySchemes.bearerAuth, {
      type: 'http',
      scheme: 'bearer',
      bearerFormat: 'JWT',
      description: doc.components.securitySchemes.bearerAuth?.description,
    });
    assert.equal(doc.components.securitySchemes.apiKey?.type, 'apiKey');
    assert.equal(doc.components.securitySchemes.apiKey?.in, 'header');
    assert.equal(doc.components.securitySchemes.apiKey?.name, 'X-API-KEY');
    for (const path of [PATHS.toggle, PATHS.start]) {
      const op = doc.paths[path]!.post;
      assert.deepEqual(op.security, [{ bearerAuth: [], apiKey: [] }], path);
      // The start also takes the plugin's upload form (docs/files.md); the toggle does not.
      const types = ['application/json', 'application/x-www-form-urlencoded', ...(path === PATHS.start ? ['multipart/form-data'] : [])];
      assert.deepEqual(Object.keys(op.requestBody.content), types, path);
      assert.deepEqual(
        op.parameters?.map((p) => `${p.in}:${p.name}`),
        ['header:x-request-id'],
        path,
      );
      // The start's 415: a file sent as audio that is not (docs/files.md); its 429: the abuse limits (docs/safety.md).
      const limited = path === PATHS.start ? ['415', '429'] : [];
      assert.deepEqual(Object.keys(op.responses), ['200', '400', '401', '403', '404', '413', ...limited, '500', '503'], path);
      for (const [status, response] of Object.entries(op.responses)) {
        assert.ok(response.headers?.['x-request-id'], `${path} ${status} documents X-Request-Id`);
      }
    }
    assert.deepEqual(Object.keys(doc.components.schemas).sort(), ['ErrorShapeA', 'ErrorShapeB', 'ErrorShapeBMessage', 'ErrorShapeC']);
  });

  it('lists every error code of the interface under its status, with its message', () => {
    const toggle = doc.paths[PATHS.toggle]!.post;
    const start = doc.paths[PATHS.start]!.post;
    assert.deepEqual(
      [...new Set(errorCodes(toggle, '401'))],
      ['MISSING_X_API_KEY_HEADER', 'INVALID_API_KEY', 'INVALID_AUTHORIZATION_HEADER_TOKEN_TYPE', 'SEGMENT_FAULT', 'INVALID_TOKEN'],
    );
    assert.deepEqual(errorCodes(toggle, '403'), ['FORBIDDEN']);
    assert.deepEqual([...new Set(errorCodes(toggle, '400'))], ['BADREQUEST']);
    assert.deepEqual(
      [...new Set(errorCodes(start, '401'))],
      [
        'MISSING_X_API_KEY_HEADER',
        'INVALID_API_KEY',
        'MISSING_AUTHORIZATION_HEADER',
        'INVALID_AUTHORIZATION_HEADER_TOKEN_TYPE',
        'SEGMENT_FAULT',
        'INVALID_TOKEN',
      ],
    );
    // Not logged in, the caller's own listing, a block or the caller disabled (docs/safety.md).
    assert.deepEqual(errorCodes(start, '403'), ['DENIED_REST_API', 'FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN']);
    assert.match(start.responses['403']!.description, /- `FORBIDDEN`: You cannot send messages to this user\./);
    for (const op of [toggle, start]) {
      assert.deepEqual(errorCodes(op, '404'), ['rest_no_route']);
      assert.deepEqual(errorCodes(op, '413'), ['PAYLOAD_TOO_LARGE']);
      assert.match(op.responses['401']!.description, /- `SEGMENT_FAULT`: Incorrect JWT Format\./);
      assert.match(op.responses['400']!.description, /- `BADREQUEST`: Listing not found\./);
    }
    assert.match(start.responses['403']!.description, /- `DENIED_REST_API`: Denied api call/);
  });

  it('documents GET my/favourites: page and per_page in the query, the N2 refusals under 400', () => {
    const list = doc.paths[PATHS.toggle]!.get!;
    assert.equal(list.operationId, 'listFavourites');
    assert.deepEqual(
      list.parameters?.map((p) => `${p.in}:${p.name}`),
      ['query:page', 'query:per_page', 'header:x-request-id'],
    );
    assert.deepEqual(Object.keys(list.responses), ['200', '400', '401', '403', '404', '413', '500', '503']);
    for (const message of [
      'page must be a positive integer.',
      'per_page must be a positive integer.',
      'per_page must be between 1 and 100.',
    ]) {
      assert.ok(list.responses['400']!.description.includes(`- \`BADREQUEST\`: ${message}`), message);
    }
  });
});

describe('OpenAPI document: the 200 examples are real replies', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  ajv.addSchema(doc, 'openapi.json');
  const pointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');
  const operations = Object.entries(doc.paths).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({ path, method, op: op as Operation })),
  );
  const examplesOf = (op: Operation) =>
    Object.entries(op.responses['200']?.content ?? {}).flatMap(([type, media]) => [
      ...(media.example === undefined ? [] : [{ type, name: 'example', value: media.example }]),
      ...Object.entries(media.examples ?? {}).map(([name, e]) => ({ type, name, value: e.value as unknown })),
    ]);

  it('src/http/routes/recorded-replies.ts holds the recordings (run npm run recorded-replies when this fails)', async () => {
    assert.equal(readFileSync(RECORDED_REPLIES_FILE, 'utf8'), await generateRecordedReplies());
  });

  it('every operation has a 200 example, and every example is valid against its schema', () => {
    const invalid: string[] = [];
    for (const { path, method, op } of operations) {
      // A route that answers nothing (POST my/chat/typing: 204) has no example to show.
      if (!op.responses['200'] && op.responses['204']) continue;
      const examples = examplesOf(op);
      assert.ok(examples.length > 0, `${method} ${path} has a 200 example`);
      for (const { type, name, value } of examples) {
        const validate = ajv.getSchema(`openapi.json#/paths/${pointer(path)}/${method}/responses/200/content/${pointer(type)}/schema`)!;
        if (!validate(value)) invalid.push(`${method} ${path} ${name}: ${ajv.errorsText(validate.errors)}`);
      }
    }
    assert.deepEqual(invalid, []);
  });

  it('every route the recordings cover shows recorded replies, the classic generation too where Souk gives it as recorded', () => {
    const named = Object.fromEntries(operations.map(({ op }) => [op.operationId, examplesOf(op).map((e) => e.name)]));
    for (const id of ['checkConversation', 'readConversation']) {
      assert.ok(named[id]!.includes('current') && named[id]!.includes('classic'), id);
    }
    const recorded = operations.filter(({ op }) => Object.values(op.responses['200']?.content ?? {}).some((m) => m.examples));
    assert.deepEqual(recorded.map(({ op }) => op.operationId).sort(), [
      'checkConversation',
      'leaveConversation',
      'listConversations',
      'listFavourites',
      'markRead',
      'myAccount',
      'readConversation',
      'sendMessage',
      'signIn',
      'signOut',
      'startConversation',
      'toggleFavourite',
    ]);
    assert.deepEqual(doc.paths[CHECK]!.get!.responses['200']!.content['application/json']!.examples!['no conversation']!.value, false);
  });

  it('the offer routes show a reply of the shape Souk really gives', async () => {
    const t = await startTestSouk();
    const offered = await t.post(OFFER, { listing_id: LISTINGS.bike, amount: 1000 }, t.auth(USERS.amina));
    assert.equal(offered.statusCode, 200, offered.body);
    const answered = await t.post(OFFER_RESPOND, { message_id: offered.json().message_id, action: 'accept' }, t.auth(USERS.youssef));
    assert.equal(answered.statusCode, 200, answered.body);
    for (const [path, res] of [
      [OFFER, offered],
      [OFFER_RESPOND, answered],
    ] as const) {
      assert.deepEqual(shapeOf(doc.paths[path]!.post.responses['200']!.content['application/json']!.example), shapeOf(res.json()), path);
    }
  });

  it('the routes no recording covers show a reply of the shape Souk really gives', async () => {
    const t = await startTestSouk();
    const headers = { ...t.auth(USERS.amina), 'content-type': 'application/json' };
    const push = JSON.stringify({ push_token: 'ExponentPushToken[abcdefghij]', events: ['message'] });
    const conId = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hi' })).json().con_id;
    for (const [path, payload] of [
      [TICKET, ''],
      [PUSH_REGISTER, push],
      [PUSH_ADD_DEVICE, push],
      [CHAT_REPORT, JSON.stringify({ con_id: conId, reason: 'spam' })],
      [LISTING_REPORT, JSON.stringify({ listing_id: LISTINGS.bike, message: 'scam' })],
      [USER_BLOCK, JSON.stringify({ user_id: USERS.sara })],
      [LISTING_BLOCK, JSON.stringify({ listing_id: LISTINGS.bike })],
    ] as const) {
      const res = await t.app.inject({ method: 'POST', url: path, headers, payload });
      assert.equal(res.statusCode, 200, res.body);
      const example = doc.paths[path]!.post.responses['200']!.content['application/json']!.example;
      assert.deepEqual(shapeOf(example), shapeOf(res.json()), path);
    }
    // Youssef seen by a request of his: his last_seen is a time, as the example's.
    assert.equal((await t.app.inject({ url: MY, headers: t.auth(USERS.youssef) })).statusCode, 200);
    const presence = await t.app.inject({ url: `${PRESENCE}?user_ids=${USERS.youssef}`, headers: t.auth(USERS.amina) });
    assert.equal(presence.statusCode, 200, presence.body);
    assert.deepEqual(shapeOf(doc.paths[PRESENCE]!.get!.responses['200']!.content['application/json']!.example), shapeOf(presence.json()));
    // The only published listing another user has: unblocked, so that the start below may be about it.
    const unblocked = await t.app.inject({
      method: 'DELETE',
      url: `${LISTING_BLOCK}?listing_id=${LISTINGS.bike}`,
      headers: t.auth(USERS.amina),
    });
    assert.equal(unblocked.statusCode, 200, unblocked.body);
    const config = await t.app.inject({ method: 'GET', url: CONFIG, headers: { 'x-api-key': t.apiKey } });
    assert.equal(config.statusCode, 200, config.body);
    assert.deepEqual(shapeOf(doc.paths[CONFIG]!.get!.responses['200']!.content['application/json']!.example), shapeOf(config.json()));

    // The event stream: a real message.new event, as the example shows one.
    const stream = await SseClient.open(`${await t.listen()}${EVENTS}`, t.auth(USERS.youssef));
    try {
      const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json();
      await t.post(`${MESSAGE}`, { con_id: started.con_id, text: 'Is it still available?', temp_id: 7 }, t.auth(USERS.amina));
      const events = await stream.take(4);
      const example = String(doc.paths[EVENTS]!.get!.responses['200']!.content['text/event-stream']!.example);
      const [, id, name, data] = /^id: (\d+)\nevent: (\S+)\ndata: (.*)\n\n$/.exec(example) ?? [];
      const real = events.find((e) => e.event === name && e.id === id);
      assert.ok(real, `${example} among ${JSON.stringify(events.map((e) => [e.id, e.event]))}`);
      assert.deepEqual(shapeOf(JSON.parse(data!)), shapeOf(JSON.parse(real.data)));
    } finally {
      stream.close();
    }
  });
});
