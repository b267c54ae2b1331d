/**
 * The bench's read floor (bench/floor-reads.mjs) must answer the read rows' requests with Souk's
 * bytes, or its rows would measure other work: Souk (`bin/souk serve`) and the floor run as real
 * processes on one small bench data set, and a sample of each read row's requests, other pages
 * included, goes to both. The bench makes the same check before each floor row (bench/run.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstDifference, startFloorReads } from '../../bench/floor.js';
import { readSample, readScenario, type RowName } from '../../bench/scenarios.js';
import { soukBesideFloor, type SoukBesideFloor } from '../helpers/bench-floor.js';
import { TEST_POSTGRES_URL } from '../helpers/database.js';

const SIZES = { users: 80, listings: 400, favouritesPerUser: 5, conversations: 150, readers: 6 };
const ROWS: RowName[] = ['chat-poll', 'chat-list', 'favourites'];

const skip = TEST_POSTGRES_URL ? "SQLite only: the read floor reads Souk's SQLite file" : false;

describe('the read floor', { skip }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'souk-floor-reads-'));
  const file = join(dir, 'souk.db');
  let t: SoukBesideFloor;

  before(async () => {
    t = await soukBesideFloor(`sqlite:${file}`, SIZES, (data) => startFloorReads('floor', file, data));
  });

  after(async () => {
    await t?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  for (const row of ROWS) {
    it(`answers ${row}'s requests, other pages included, with Souk's bytes`, async () => {
      const sample = readSample(t.data, row, 12);
      assert.ok(new Set(sample.map((r) => r.user)).size > 1, 'several readers');
      assert.ok(new Set(sample.map((r) => r.path.replace(/con_id=\d+&?/, ''))).size > 2, 'several page shapes');
      assert.equal(await firstDifference(t.souk.url, t.floor.url, sample, t.headers), null);
    });

    it(`gives Souk's ${row} replies that the row's own checks accept`, async () => {
      const scenario = readScenario(t.data, row);
      for (let k = 0; k < 6; k++) {
        const ctx = {};
        const { path, user } = scenario.next(ctx);
        const res = await fetch(t.souk.url + (path ?? scenario.path), { headers: t.headers(user) });
        assert.equal(scenario.verify(res.status, await res.text(), ctx), null, path);
      }
    });
  }

  it('reports a request that either server does not answer with 200, with both bodies', async () => {
    // A reader's conversation asked for by another reader (readers own no listing): refused (403) by both.
    const { path, user } = readSample(t.data, 'chat-poll', 1)[0]!;
    const stranger = user === t.data.firstReader ? t.data.firstReader + 1 : t.data.firstReader;
    const difference = await firstDifference(t.souk.url, t.floor.url, [{ path, user: stranger }], t.headers);
    assert.match(difference ?? '', /HTTP 403 and 403/);
    assert.match(difference ?? '', /not permitted to access this conversation/);
  });
});
