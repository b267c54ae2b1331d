/**
 * TOKEN_CACHE_SIZE, through the real app: how many verified tokens are kept, so that a token seen
 * again is not verified again. The cache is in memory, whatever the database: this runs once.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, PATHS, type TestSouk } from '../helpers/souk.js';
import { USERS } from '../helpers/fixtures.js';

/** Sends each token in turn, `rounds` times over; the tokens cached after, and the signatures checked meanwhile. */
async function sendInTurn(t: TestSouk, tokens: string[], rounds: number) {
  const start = t.souk.tokens.stats().signatureChecks;
  for (let round = 0; round < rounds; round++) {
    for (const token of tokens) {
      const reply = await t.post(PATHS.toggle, { listing_id: 999 }, { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey });
      assert.equal(reply.statusCode, 400, reply.body); // let in: listing 999 not found
    }
  }
  const { cachedTokens, signatureChecks } = t.souk.tokens.stats();
  return { cachedTokens, signatureChecks: signatureChecks - start };
}

describe('TOKEN_CACHE_SIZE', () => {
  for (const [size, signatureChecks, cachedTokens] of [
    ['0', 6, 0],
    ['1', 6, 1],
    ['2', 2, 2],
  ] as const) {
    it(`${size}: two tokens sent in turn three times each are verified ${signatureChecks} times`, async () => {
      const t = await startTestSouk({ TOKEN_CACHE_SIZE: size });
      const tokens = [t.token(USERS.amina), t.token(USERS.youssef)];
      assert.deepEqual(await sendInTurn(t, tokens, 3), { cachedTokens, signatureChecks });
    });
  }

  it('counts long tokens by their length: at 4, four short tokens are kept, of four long ones only one', async () => {
    const t = await startTestSouk({ TOKEN_CACHE_SIZE: '4' });
    const users = [USERS.amina, USERS.youssef, USERS.sara, USERS.amina];
    // Room for 4 × 300 characters: four of about 260 fit, and one of about 700 (a 330-character login).
    const short = users.map((user, i) => t.token(user, { login: `user${i}` }));
    assert.ok(short.every((token) => token.length < 300));
    assert.deepEqual(await sendInTurn(t, short, 2), { cachedTokens: 4, signatureChecks: 4 });
    const long = users.map((user, i) => t.token(user, { login: `${i}`.padEnd(330, 'l') }));
    assert.ok(long.every((token) => token.length > 600 && token.length <= 1024));
    assert.deepEqual(await sendInTurn(t, long, 2), { cachedTokens: 1, signatureChecks: 8 });
  });
});
