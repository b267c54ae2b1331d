/**
 * The requests the interface accepts, checked against the request side of the OpenAPI document as a third-party
 * validator in proxy mode checks them (Stoplight Prism found 13 the document called invalid): the path and the
 * method, the security requirements, every query and header parameter against its schema (a query parameter the
 * operation does not declare is invalid), and the body against the schema of its media type (a body where the
 * operation documents none is invalid). Ajv over the document's own schemas (JSON Schema 2020-12, as OpenAPI 3.1).
 * The requests: every one the original service accepted in its recordings (test/fixtures/original*, both
 * generations), and every one the React Native and Flutter apps send in their flows, replayed on a real Souk.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import Ajv2020Module from 'ajv/dist/2020.js';
import { generateOpenApi } from '../../scripts/openapi.js';
import { appCatalog, flutterDoubleSend, flutterFlow, reactNativeFlow, type SentRequest } from '../helpers/chat-apps.js';
import { recordedSteps } from '../helpers/recordings.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

const Ajv2020 = Ajv2020Module.default ?? Ajv2020Module;

interface Parameter {
  in: string;
  name: string;
  required?: boolean;
}
interface Operation {
  parameters?: Parameter[];
  requestBody?: { required?: boolean; content: Record<string, unknown> };
  security?: Array<Record<string, string[]>>;
}
interface SecurityScheme {
  type: string;
  in?: string;
  name?: string;
  scheme?: string;
}
interface Doc {
  paths: Record<string, Record<string, Operation>>;
  components: { securitySchemes: Record<string, SecurityScheme> };
}

const doc = JSON.parse(await generateOpenApi()) as Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true });
ajv.addSchema(doc, 'openapi.json');

const pointer = (s: string) => s.replaceAll('~', '~0').replaceAll('/', '~1');

/** A query string or form body as Souk's parsers read it: a repeated name gives an array. */
function fields(params: URLSearchParams): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    out[name] = values.length === 1 ? values[0]! : values;
  }
  return out;
}

/** Whether the request carries what the security scheme asks for. */
function carries(scheme: SecurityScheme, headers: Record<string, string>, query: URLSearchParams): boolean {
  if (scheme.type === 'http' && scheme.scheme === 'bearer') return /^Bearer \S/i.test(headers.authorization ?? '');
  if (scheme.type === 'apiKey' && scheme.in === 'header') return headers[scheme.name!.toLowerCase()] !== undefined;
  if (scheme.type === 'apiKey' && scheme.in === 'query') return query.has(scheme.name!);
  return false;
}

/** What the document finds wrong with a request: nothing for a request it describes. */
function requestProblems(request: Pick<SentRequest, 'method' | 'path' | 'headers' | 'body'>): string[] {
  const url = new URL(request.path, 'http://souk.test');
  const method = request.method.toLowerCase();
  const operation = doc.paths[url.pathname]?.[method];
  if (!operation) return [`no operation ${method} ${url.pathname}`];
  const at = `openapi.json#/paths/${pointer(url.pathname)}/${method}`;
  const problems: string[] = [];
  const check = (schemaAt: string, value: unknown, what: string) => {
    const validate = ajv.getSchema(schemaAt);
    if (!validate) problems.push(`no schema at ${schemaAt}`);
    else if (!validate(value)) problems.push(`${what}: ${ajv.errorsText(validate.errors)}`);
  };

  const schemes = doc.components.securitySchemes;
  const security = operation.security ?? [];
  if (
    security.length > 0 &&
    !security.some((all) => Object.keys(all).every((name) => carries(schemes[name]!, request.headers, url.searchParams)))
  ) {
    problems.push('carries none of the security requirements');
  }

  const parameters = operation.parameters ?? [];
  const query = fields(url.searchParams);
  const inQuery = new Set([
    ...parameters.filter((p) => p.in === 'query').map((p) => p.name),
    ...Object.values(schemes).flatMap((s) => (s.in === 'query' ? [s.name!] : [])),
  ]);
  for (const name of Object.keys(query)) if (!inQuery.has(name)) problems.push(`query parameter ${name} is not documented`);
  parameters.forEach((p, i) => {
    const value = p.in === 'query' ? query[p.name] : p.in === 'header' ? request.headers[p.name.toLowerCase()] : undefined;
    if (value === undefined) {
      if (p.required) problems.push(`${p.in} parameter ${p.name} is missing`);
    } else check(`${at}/parameters/${i}/schema`, value, `${p.in} parameter ${p.name}`);
  });

  const type = (request.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  // N2: a JSON content type with an empty body is an empty object; else an empty body is none.
  if (request.body === undefined || (request.body === '' && type !== 'application/json')) {
    if (operation.requestBody?.required) problems.push('the body is missing');
    return problems;
  }
  if (!operation.requestBody?.content[type]) {
    problems.push(`a body of type ${type || '(none)'} is not documented`);
    return problems;
  }
  const body = type === 'application/json' ? (JSON.parse(request.body || '{}') as unknown) : fields(new URLSearchParams(request.body));
  check(`${at}/requestBody/content/${pointer(type)}/schema`, body, `${type} body`);
  return problems;
}

/** Every request of a list the document does not describe, with what it finds wrong. */
function undescribed(requests: Array<Pick<SentRequest, 'method' | 'path' | 'headers' | 'body'> & { name: string }>): string[] {
  return requests.flatMap((r) => {
    const problems = requestProblems(r);
    return problems.length === 0 ? [] : [`${r.name}: ${r.method} ${r.path} ${r.body ?? ''}\n    ${problems.join('\n    ')}`];
  });
}

/** Sends one request to the real app (as the user, or with the API key only for 0) and returns it with its reply. */
async function sendAs(t: TestSouk, method: string, path: string, user: number, type?: string, body?: string) {
  const headers: Record<string, string> = user === 0 ? { 'x-api-key': t.apiKey } : t.auth(user);
  if (type) headers['content-type'] = type;
  const url = `/wp-json/rtcl/v1${path}`;
  const res = await t.app.inject({ method: method as 'GET', url, headers, payload: body });
  return { method, path: url, headers, body, status: res.statusCode, reply: res.body };
}

const RECORDINGS = ['01-login.txt', '02-favourites.txt', '03-chat.txt', '05-ordering-probes.txt'].flatMap((file) =>
  ['original', 'original-2x'].map((generation) => `${generation}/${file}`),
);
/** [099] addresses WordPress's `?rest_route=` form, which Souk does not serve (D1: {api_base} only). */
const NOT_SERVED = new Set(['099']);

describe('the OpenAPI document describes every request the interface accepts', () => {
  it('every request the original service accepted (2xx) in its recordings, both generations', () => {
    const accepted = RECORDINGS.flatMap((file) =>
      [...recordedSteps(file).values()]
        .filter((step) => step.status >= 200 && step.status < 300 && !NOT_SERVED.has(step.id))
        .map((step) => ({ ...step, name: `${file} [${step.id}] ${step.title}` })),
    );
    assert.ok(accepted.length >= 100, String(accepted.length));
    assert.deepEqual(undescribed(accepted), []);
  });

  it('every request the React Native and Flutter apps send in their flows (replayed on a real Souk), all accepted', async () => {
    const sent: SentRequest[] = [];
    await reactNativeFlow(await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' }, appCatalog()), 'classic', sent);
    await reactNativeFlow(await startTestSouk({ CHAT_REPLY_FORMAT: 'current' }, appCatalog()), 'current', sent);
    await flutterFlow(await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' }, appCatalog()), sent);
    await flutterDoubleSend(await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' }, appCatalog()), sent);
    const accepted = sent.filter((r) => r.status >= 200 && r.status < 300);
    // The flows' refusals are of access (403 after the other side left, the owner's check), not of form.
    assert.deepEqual(
      sent.filter((r) => r.status >= 300).map((r) => `${r.status} ${r.method} ${r.path.split('?')[0]}`),
      ['403 POST /wp-json/rtcl/v1/my/chat/message', '403 POST /wp-json/rtcl/v1/my/chat/message', '403 GET /wp-json/rtcl/v1/my/chat/check'],
    );
    assert.ok(
      accepted.some((r) => r.method === 'PUT' && r.body === '' && r.path.includes('?con_id=')),
      "the Flutter app's PUT",
    );
    assert.ok(
      accepted.some((r) => r.headers['content-type']?.startsWith('application/x-www-form-urlencoded')),
      'form bodies',
    );
    assert.deepEqual(undescribed(accepted.map((r, i) => ({ ...r, name: `app request ${i + 1}` }))), []);
  });

  it('every other form Souk accepts (N2: parameters in the query string, JSON or form bodies), each answered 2xx', async () => {
    const t = await startTestSouk({}, appCatalog());
    const started = (await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' })).json();
    const [conId, messageId] = [started.con_id as number, started.newMessage.message_id as number];
    const form = 'application/x-www-form-urlencoded';
    const forms: Array<[string, string, number, { type?: string; body?: string }]> = [
      // A POST's body is required (D2), but it may be an empty JSON one (N2) with the parameters in the query.
      ['POST', '/login?username=amina&password=alice-pass-123', 0, { type: 'application/json', body: '' }],
      ['POST', '/login', 0, { type: form, body: 'username=amina&password=alice-pass-123' }],
      ['POST', `/my/chat/message?con_id=${conId}`, USERS.youssef, { type: 'application/json', body: '{"text":"Yes"}' }],
      ['POST', `/my/chat/message?con_id=${conId}&listing_id=${LISTINGS.bike}`, USERS.youssef, { type: form, body: 'text=Yes&temp_id=' }],
      ['PUT', `/my/chat/message?con_id=${conId}&message_id=${messageId}`, USERS.youssef, {}],
      ['PUT', '/my/chat/message', USERS.youssef, { type: form, body: `con_id=${conId}&message_id=${messageId}` }],
      ['PUT', '/my/chat/message', USERS.youssef, { type: 'application/json', body: `{"con_id":"${conId}","message_id":"${messageId}"}` }],
      ['DELETE', '/my/chat/conversation', USERS.youssef, { type: form, body: `con_id=${conId}` }],
      [
        'POST',
        '/push-notification/register?push_token=ExponentPushToken[abc]&events=chat',
        USERS.amina,
        { type: 'application/json', body: '' },
      ],
      ['POST', '/push-notification/add-device', USERS.amina, { type: form, body: 'push_token=ExponentPushToken[abc]&events[]=chat' }],
    ];
    const sent = [];
    for (const [method, path, user, { type, body }] of forms) sent.push(await sendAs(t, method, path, user, type, body));
    assert.deepEqual(
      sent.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.method} ${r.path}`),
      [],
    );
    // The ids were read where they were sent: the query-only PUT marked the message read, the form DELETE left.
    assert.deepEqual([sent[4]!.reply, sent[5]!.reply, sent[7]!.reply], ['1', '0', '1']);
    assert.deepEqual(undescribed(sent.map((r, i) => ({ ...r, name: `form ${i + 1}` }))), []);
  });

  it('still finds what it must: an undocumented query parameter, a body of an undocumented type, a missing key', () => {
    const headers = { 'x-api-key': 'k', authorization: 'Bearer t', 'content-type': 'application/json' };
    const toggle = '/wp-json/rtcl/v1/my/favourites';
    assert.deepEqual(requestProblems({ method: 'POST', path: toggle, headers, body: '{"listing_id":8}' }), []);
    assert.deepEqual(requestProblems({ method: 'POST', path: `${toggle}?nope=1`, headers, body: '{"listing_id":8}' }), [
      'query parameter nope is not documented',
    ]);
    assert.deepEqual(requestProblems({ method: 'POST', path: toggle, headers: { ...headers, 'content-type': 'text/plain' }, body: 'x' }), [
      'a body of type text/plain is not documented',
    ]);
    assert.deepEqual(requestProblems({ method: 'POST', path: toggle, headers: { authorization: 'Bearer t' }, body: undefined }), [
      'carries none of the security requirements',
      'the body is missing',
    ]);
    assert.equal(requestProblems({ method: 'POST', path: toggle, headers, body: '{"listing_id":true}' }).length, 1);
  });
});
