/**
 * PASSWORD_CONCURRENCY and SIGN_IN_QUEUE: password verifications run a few at a time, and a burst
 * beyond the queue is answered 503 at once instead of waiting without bound. Through the real app.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword } from '../../src/auth/passwords.js';
import { marketplace, USERS } from '../helpers/fixtures.js';
import { startTestSouk } from '../helpers/souk.js';

const PASSWORD = 'a long enough password';
const BUSY = {
  status: 'error',
  error: 'SERVICE_UNAVAILABLE',
  code: '503',
  error_message: 'Too many sign-ins at once. Please try again shortly.',
};

async function withPassword() {
  const doc = marketplace();
  const hash = await hashPassword(PASSWORD);
  doc.users = doc.users!.map((u) => (u.id === USERS.amina ? { ...u, password_hash: hash } : u));
  return doc;
}

it('answers a burst beyond the queue 503 with Retry-After, signs the others in, and counts no failure', async () => {
  // Attempts in flight hold their place in the username's budget (docs/hardening.md, 4): 12 fit.
  const t = await startTestSouk({ PASSWORD_CONCURRENCY: '1', SIGN_IN_QUEUE: '2', LOGIN_FAILURES_PER_USERNAME: '12' }, await withPassword());
  const login = (password: string) => t.post('/wp-json/rtcl/v1/login', { username: 'amina', password }, { 'x-api-key': t.apiKey });
  const alone = await login(PASSWORD);
  assert.equal(alone.statusCode, 200, alone.body);

  const replies = await Promise.all(Array.from({ length: 12 }, () => login(PASSWORD)));
  const busy = replies.filter((r) => r.statusCode === 503);
  const signedIn = replies.filter((r) => r.statusCode === 200);
  assert.equal(busy.length + signedIn.length, replies.length, replies.map((r) => `${r.statusCode} ${r.body}`).join('\n'));
  // One verifying and two waiting at most when the burst arrives: the rest are turned away at once.
  assert.ok(signedIn.length >= 1 && signedIn.length <= 4, `${signedIn.length} signed in`);
  for (const r of busy) {
    assert.deepEqual(r.json(), BUSY);
    assert.equal(r.headers['retry-after'], '1');
  }
  // A busy answer decided nothing: its place in the budget was given back, so 11 failures still fit.
  for (let i = 0; i < 11; i++) assert.equal((await login('wrong')).statusCode, 400);
  assert.equal((await login(PASSWORD)).statusCode, 200);
});

it('a wrong password in a burst is still refused as such when it gets its turn', async () => {
  const t = await startTestSouk({ PASSWORD_CONCURRENCY: '1', SIGN_IN_QUEUE: '64' }, await withPassword());
  const login = (password: string) => t.post('/wp-json/rtcl/v1/login', { username: 'amina', password }, { 'x-api-key': t.apiKey });
  const replies = await Promise.all([login(PASSWORD), login('wrong'), login(PASSWORD), login('wrong')]);
  assert.deepEqual(
    replies.map((r) => r.statusCode),
    [200, 400, 200, 400],
  );
});
