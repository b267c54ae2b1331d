/**
 * `npm run bench -- --api-key-timing`: how long the X-API-KEY comparison takes for a one-character
 * key, a wrong key of the right length and the right key (median of 15 rounds of 2000 comparisons).
 * The three should be about equal: the comparison hashes both sides to 32-byte digests and compares
 * those in constant time (src/auth/api-key.ts; test/auth/api-key.test.ts asserts the mechanism).
 * A figure, not a check: timings on a shared machine are too noisy to assert.
 */
import { sameKey } from '../src/auth/api-key.js';

const EXPECTED = 'k3yK3yk3yK3yk3yK3yk3yK3yk3yK3yk3yK3yk3y_-';

function medianNs(presented: string): number {
  const samples: number[] = [];
  for (let round = 0; round < 15; round++) {
    const started = process.hrtime.bigint();
    for (let i = 0; i < 2000; i++) sameKey(presented, EXPECTED);
    samples.push(Number(process.hrtime.bigint() - started) / 2000);
  }
  return samples.sort((a, b) => a - b)[7]!;
}

export function apiKeyTiming(log: (line: string) => void): void {
  medianNs(EXPECTED); // warm up
  const rows: [string, number][] = [
    ['one character', medianNs('k')],
    ['wrong key of the right length', medianNs(`X${EXPECTED.slice(1)}`)],
    ['the right key', medianNs(EXPECTED)],
  ];
  log('X-API-KEY comparison, ns per comparison (median of 15 rounds of 2000):');
  for (const [label, ns] of rows) log(`  ${label.padEnd(30)} ${ns.toFixed(0)}`);
}
