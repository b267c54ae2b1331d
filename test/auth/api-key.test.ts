/**
 * The X-API-KEY comparison (D4 step 2) runs in constant time: whatever the presented key's length,
 * it is compared as two 32-byte SHA-256 digests with crypto.timingSafeEqual, with no early return
 * when the lengths differ.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { timingSafeEqual } from 'node:crypto';
import { checkApiKey, sameKey } from '../../src/auth/api-key.js';

const EXPECTED = 'k3yK3yk3yK3yk3yK3yk3yK3yk3yK3yk3yK3yk3y_-';

const PRESENTED: [string, string][] = [
  ['one character', 'k'],
  ['a strict prefix of the key', EXPECTED.slice(0, -1)],
  ['the key with its first character changed', `X${EXPECTED.slice(1)}`],
  ['the key with its last character changed', `${EXPECTED.slice(0, -1)}X`],
  ['the key plus one character', `${EXPECTED}y`],
  ['a 100 000-character value', 'k'.repeat(100_000)],
  ['multi-byte characters', 'ключ🔑'],
  ['the key itself', EXPECTED],
];

describe('API key comparison', () => {
  for (const [label, presented] of PRESENTED) {
    it(`compares ${label} as two 32-byte digests, exactly once`, () => {
      const calls: [number, number][] = [];
      const recordingEqual = (a: Buffer, b: Buffer) => {
        calls.push([a.length, b.length]);
        return timingSafeEqual(a, b);
      };
      const result = sameKey(presented, EXPECTED, recordingEqual);
      assert.deepEqual(calls, [[32, 32]], 'one comparison of equal-length buffers, whatever the length of the presented key');
      assert.equal(result, presented === EXPECTED);
    });
  }

  it('answers every non-empty presented value through the comparison', () => {
    assert.equal(checkApiKey(undefined, EXPECTED), 'api_key_missing');
    assert.equal(checkApiKey('', EXPECTED), 'api_key_missing');
    for (const [, presented] of PRESENTED) {
      assert.equal(checkApiKey(presented, EXPECTED), presented === EXPECTED ? null : 'api_key_invalid');
    }
  });
});
