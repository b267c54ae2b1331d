/**
 * The bench's PostgreSQL floor (bench/floor-postgres.mjs) must answer with Souk's bytes, or its rows
 * would measure other work: Souk (`bin/souk serve`) and the floor run as real processes on one small
 * bench data set in a schema of its own. A sample of the conversation read's requests goes to both; a
 * favourite is toggled on one and then the other, so each answers an add and a removal that the other
 * answered too. The bench checks the read again before its floor row (bench/run.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { listingId } from '../../bench/dataset.js';
import { freshBenchDatabase, type BenchDatabase } from '../../bench/database.js';
import { firstDifference } from '../../bench/floor.js';
import { startPostgresFloor, type ServerProcess } from '../../bench/processes.js';
import { PATHS, readSample } from '../../bench/scenarios.js';
import { soukBesideFloor, type SoukBesideFloor } from '../helpers/bench-floor.js';
import { TEST_POSTGRES_URL } from '../helpers/database.js';

const SIZES = { users: 60, listings: 300, favouritesPerUser: 5, conversations: 100, readers: 4 };

describe('the PostgreSQL floor', { skip: TEST_POSTGRES_URL ? false : 'PostgreSQL only' }, () => {
  let db: BenchDatabase;
  let t: SoukBesideFloor;

  before(async () => {
    db = await freshBenchDatabase(TEST_POSTGRES_URL);
    t = await soukBesideFloor(db.url, SIZES, (data) => startPostgresFloor(db.url, data));
  });

  after(async () => {
    await t?.stop();
    await db?.drop();
  });

  it("answers the conversation read's requests, other pages included, with Souk's bytes", async () => {
    const sample = readSample(t.data, 'chat-poll', 12);
    assert.ok(new Set(sample.map((r) => r.user)).size > 1, 'several readers');
    assert.equal(await firstDifference(t.souk.url, t.floor.url, sample, t.headers), null);
  });

  it("answers a toggle's add and removal with Souk's bytes", async () => {
    const listing = listingId(SIZES.listings - 1);
    const toggle = async (server: ServerProcess) => {
      const res = await fetch(server.url + PATHS.toggle, {
        method: 'POST',
        headers: { ...t.headers(0), 'content-type': 'application/json' },
        body: JSON.stringify({ listing_id: listing }),
      });
      return { status: res.status, body: await res.text() };
    };
    const soukAdds = await toggle(t.souk);
    const floorRemoves = await toggle(t.floor);
    const floorAdds = await toggle(t.floor);
    const soukRemoves = await toggle(t.souk);
    assert.equal(soukAdds.status, 200, soukAdds.body);
    assert.ok((JSON.parse(soukAdds.body) as number[]).includes(listing), soukAdds.body);
    assert.ok(!(JSON.parse(soukRemoves.body) as number[]).includes(listing), soukRemoves.body);
    assert.deepEqual(floorAdds, soukAdds);
    assert.deepEqual(floorRemoves, soukRemoves);
  });
});
