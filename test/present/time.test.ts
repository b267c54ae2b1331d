/** Wire times: `YYYY-MM-DD HH:MM:SS` in the site time zone, whatever order the times come in. */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { propertySeed } from '../helpers/property.js';
import { isoUtcSecond, timeFormatter, utcSecond } from '../../src/present/time.js';

it('formats in the site time zone, across a daylight-saving change', () => {
  const paris = timeFormatter('Europe/Paris');
  // 2026-03-29 01:00 UTC: Paris goes from UTC+1 to UTC+2.
  const before = Date.UTC(2026, 2, 29, 0, 59, 59);
  const after = Date.UTC(2026, 2, 29, 1, 0, 0);
  assert.equal(paris(before), '2026-03-29 01:59:59');
  assert.equal(paris(after), '2026-03-29 03:00:00');
  assert.equal(paris(before), '2026-03-29 01:59:59', 'an earlier time after a later one');
});

it('gives every millisecond of a second the same text, and the next second its own', () => {
  const tokyo = timeFormatter('Asia/Tokyo');
  const second = Date.UTC(2026, 10, 22, 12, 0, 5);
  assert.equal(tokyo(second), '2026-11-22 21:00:05');
  assert.equal(tokyo(second + 999), '2026-11-22 21:00:05');
  assert.equal(tokyo(second + 1000), '2026-11-22 21:00:06');
  assert.equal(tokyo(second - 1), '2026-11-22 21:00:04');
});

it('formats UTC without Intl, every millisecond of a second alike', () => {
  const utc = timeFormatter('UTC');
  assert.equal(utc(Date.UTC(2026, 0, 2, 3, 4, 5, 678)), '2026-01-02 03:04:05');
  assert.equal(utc(Date.UTC(2026, 0, 2, 3, 4, 5, 999)), '2026-01-02 03:04:05');
  assert.equal(utc(Date.UTC(2026, 0, 2, 3, 4, 6)), '2026-01-02 03:04:06');
  assert.equal(utc(Date.UTC(1999, 11, 31, 23, 59, 59, 1)), '1999-12-31 23:59:59', 'an earlier time after a later one');
});

it('keeps each second its own text when a reply goes back and forth between two or three', () => {
  for (const zone of ['UTC', 'America/New_York']) {
    const format = timeFormatter(zone);
    const reference = (ms: number) => timeFormatter(zone)(ms);
    const created = Date.UTC(2025, 4, 6, 7, 8, 9, 500);
    const now = Date.UTC(2026, 10, 22, 10, 30, 0, 250);
    const other = Date.UTC(2024, 1, 29, 23, 59, 58);
    const sequence = [created, now, now, now, other, now, created, other, other, now, created];
    for (const [i, ms] of sequence.entries()) assert.equal(format(ms), reference(ms), `${zone}, call ${i}`);
  }
});

it('writes UTC seconds as the plain path (Date.toISOString) does, for every second of years 0 to 9999 and past them', () => {
  const edges = [-62_167_219_200, -62_167_219_201, 253_402_300_799, 253_402_300_800, 0, -1, 86_399, 86_400, 951_782_400, 4_107_542_399];
  for (const second of edges) assert.equal(utcSecond(second), isoUtcSecond(second), String(second));
  fc.assert(
    fc.property(fc.integer({ min: -70_000_000_000, max: 260_000_000_000 }), (second) => utcSecond(second) === isoUtcSecond(second)),
    { numRuns: 20_000, seed: propertySeed() },
  );
});
