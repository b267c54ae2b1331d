/**
 * TOKEN_CACHE_SIZE, through the real app: how many verified tokens are kept, so that a token seen
 * again is not verified again. The cache is in memory, whatever the database: this runs once.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk, PATHS } from '../helpers/souk.js';
import { USERS } from '../helpers/fixtures.js';

describe('TOKEN_CACHE_SIZE', () => {
  for (const [size, signatureChecks, cachedTokens] of [
    ['0', 6, 0],
    ['1', 6, 1],
    ['2', 2, 2],
  ] as const) {
    it(`${size}: two tokens sent in turn three times each are verified ${signatureChecks} times`, async () => {
      const t = await startTestSouk({ TOKEN_CACHE_SIZE: size });
      const tokens = [t.token(USERS.amina), t.token(USERS.youssef)];
      const start = t.souk.tokens.stats();
      for (let round = 0; round < 3; round++) {
        for (const token of tokens) {
          const reply = await t.post(PATHS.toggle, { listing_id: 999 }, { authorization: `Bearer ${token}`, 'x-api-key': t.apiKey });
          assert.equal(reply.statusCode, 400, reply.body); // let in: listing 999 not found
        }
      }
      assert.deepEqual(t.souk.tokens.stats(), { cachedTokens, signatureChecks: start.signatureChecks + signatureChecks });
    });
  }
});
