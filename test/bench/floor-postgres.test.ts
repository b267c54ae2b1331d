/**
 * The bench's PostgreSQL floor (bench/floor-postgres.mjs) must answer with Souk's bytes, or its rows
 * would measure other work: Souk (`bin/souk serve`) and the floor run as real processes on one small
 * bench data set in a schema of its own. A sample of the conversation read's requests goes to both; a
 * favourite is toggled on one and then the other, so each answers an add and a removal that the other
 * answered too. The bench checks the read again before its floor row (bench/run.ts).
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { buildDataset, listingId, type Dataset } from '../../bench/dataset.js';
import { freshBenchDatabase, type BenchDatabase } from '../../bench/database.js';
import { firstDifference } from '../../bench/floor.js';
import { startPostgresFloor, startSouk, type ServerProcess } from '../../bench/processes.js';
import { PATHS, readSample, signTokens } from '../../bench/scenarios.js';
import { TEST_POSTGRES_URL } from '../helpers/database.js';

const SIZES = { users: 60, listings: 300, favouritesPerUser: 5, conversations: 100, readers: 4 };

describe('the PostgreSQL floor', { skip: TEST_POSTGRES_URL ? false : 'PostgreSQL only' }, () => {
  let db: BenchDatabase;
  let data: Dataset;
  let tokens: string[];
  let souk: ServerProcess;
  let floor: ServerProcess;
  const headers = (user: number) => ({ 'x-api-key': data.apiKey, authorization: `Bearer ${tokens[user]}` });

  before(async () => {
    db = await freshBenchDatabase(TEST_POSTGRES_URL);
    data = await buildDataset({ url: db.url, sizes: SIZES });
    tokens = signTokens(data);
    [souk, floor] = await Promise.all([startSouk('souk', { databaseUrl: db.url }), startPostgresFloor(db.url, data)]);
  });

  after(async () => {
    await Promise.all([souk?.stop(), floor?.stop()]);
    await db?.drop();
  });

  it("answers the conversation read's requests, other pages included, with Souk's bytes", async () => {
    const sample = readSample(data, 'chat-poll', 12);
    assert.ok(new Set(sample.map((r) => r.user)).size > 1, 'several readers');
    assert.equal(await firstDifference(souk.url, floor.url, sample, headers), null);
  });

  it("answers a toggle's add and removal with Souk's bytes", async () => {
    const listing = listingId(SIZES.listings - 1);
    const toggle = async (server: ServerProcess) => {
      const res = await fetch(server.url + PATHS.toggle, {
        method: 'POST',
        headers: { ...headers(0), 'content-type': 'application/json' },
        body: JSON.stringify({ listing_id: listing }),
      });
      return { status: res.status, body: await res.text() };
    };
    const soukAdds = await toggle(souk);
    const floorRemoves = await toggle(floor);
    const floorAdds = await toggle(floor);
    const soukRemoves = await toggle(souk);
    assert.equal(soukAdds.status, 200, soukAdds.body);
    assert.ok((JSON.parse(soukAdds.body) as number[]).includes(listing), soukAdds.body);
    assert.ok(!(JSON.parse(soukRemoves.body) as number[]).includes(listing), soukRemoves.body);
    assert.deepEqual(floorAdds, soukAdds);
    assert.deepEqual(floorRemoves, soukRemoves);
  });
});
