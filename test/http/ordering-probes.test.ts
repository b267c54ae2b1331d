/**
 * The probes of original/05-ordering-probes.txt that concern sign-in and the toggle ([079]-[086])
 * and unknown routes ([097], [098]), sent as recorded (method, path, content type, body) with the
 * recorded credentials' presence (the key and token are Souk's own). The chat probes are replayed
 * in chat-recordings.test.ts.
 *
 * Where the contract decides otherwise than the recording, Souk's decided reply is asserted:
 * - [080], [081] the toggle without Authorization: 403 A "You are not logged in." (docs/interface.md,
 *   toggle rule 1; D4 checks credentials before the body, so [080]'s empty body is not read).
 * - [083] listing_id "abc": 400 B BADREQUEST (D3), not WordPress's rest_invalid_param.
 * - [086] malformed JSON: 400 B BADREQUEST "The request body is not valid JSON." (D2).
 * - [097], [098]: 404 A rest_no_route without `data` (D1).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { recordedSteps } from '../helpers/recordings.js';
import { startTestSouk } from '../helpers/souk.js';

const ALICE = 2;
const BOB = 3;
const steps = recordedSteps('original/05-ordering-probes.txt');

const catalog = {
  users: [
    { id: ALICE, login: 'alice', email: 'alice@example.test' },
    { id: BOB, login: 'bob', email: 'bob@example.test' },
  ],
  listings: [{ id: 8, owner_id: BOB, title: 'Used iPhone 12, 128GB' }],
};

const B = (error: string, code: number, message: string) => ({ status: 'error', error, code: String(code), error_message: message });
const NOT_LOGGED_IN = { code: 'FORBIDDEN', message: 'You are not logged in.' };
const NO_ROUTE = { code: 'rest_no_route', message: 'No route was found matching the URL and request method.' };

/** What Souk answers where the contract decides otherwise than the recording. */
const DECIDED: Record<string, { status: number; body: unknown }> = {
  '080': { status: 403, body: NOT_LOGGED_IN },
  '081': { status: 403, body: NOT_LOGGED_IN },
  '083': { status: 400, body: B('BADREQUEST', 400, 'listing_id is required and must be a positive integer.') },
  '086': { status: 400, body: B('BADREQUEST', 400, 'The request body is not valid JSON.') },
  '097': { status: 404, body: NO_ROUTE },
  '098': { status: 404, body: NO_ROUTE },
};

it('answers the sign-in, toggle and routing probes of 05-ordering-probes.txt as recorded, or as the contract decides', async () => {
  const t = await startTestSouk({}, catalog);
  // Before [079] alice had listing 8 in her favourites: [084] toggles it off.
  assert.deepEqual((await t.toggle(ALICE, { listing_id: 8 })).json(), [8]);
  for (const id of ['079', '080', '081', '082', '083', '084', '085', '086', '097', '098']) {
    const step = steps.get(id)!;
    const headers: Record<string, string> = {};
    if (step.headers['content-type']) headers['content-type'] = step.headers['content-type'];
    if (step.headers['x-api-key']) headers['x-api-key'] = t.apiKey;
    if (step.headers.authorization) headers.authorization = `Bearer ${t.token(ALICE)}`;
    const res = await t.app.inject({
      method: step.method as 'GET',
      url: step.path,
      headers,
      ...(step.body !== undefined ? { payload: step.body } : {}),
    });
    const expected = DECIDED[id] ?? { status: step.status, body: JSON.parse(step.replyBody) };
    assert.equal(res.statusCode, expected.status, `[${id}] ${step.title}: ${res.body}`);
    assert.deepEqual(res.json(), expected.body, `[${id}] ${step.title}`);
  }
});
