/**
 * The floors: the operations written as lean as the platform allows, with none of Souk's other duties.
 * - bench/floor-toggle.mjs, the toggle and the start of a conversation. It is given the bench's own
 *   users and listings as an import document, and the bench's own favourites through its toggle
 *   before it is measured, so it answers the same requests on the same data as Souk's rows.
 * - bench/floor-reads.mjs, the three reads, on Souk's own SQLite file. Before its row, the same
 *   requests go to it and to Souk, and the run stops unless every reply is byte for byte Souk's.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { openStore } from '../src/store/index.js';
import { postJson, withWorkers } from '../tools/http.js';
import { ROOT, startProcess, type ServerProcess } from '../tools/processes.js';
import { SITE_URL, listingFields, listingId, userFields, type Dataset } from './dataset.js';
import { PATHS } from './scenarios.js';

export const FLOOR_SCRIPT = resolve(ROOT, 'bench/floor-toggle.mjs');
export const FLOOR_READS_SCRIPT = resolve(ROOT, 'bench/floor-reads.mjs');

export interface FloorData {
  file: string;
  /** Removes the import document and the floor's SQLite files. */
  remove(): void;
}

const parsed = (json: string | null) => (json ? JSON.parse(json) : []);

/**
 * Writes the bench database's users and listings as the import document the floor reads. On a
 * WordPress database (mysql://) they are not in Souk's schema: the document is made from the data
 * set's own generators, the values dataset.ts writes into SQLite or PostgreSQL.
 */
export async function writeFloorData(url: string, data: Dataset): Promise<FloorData> {
  const dir = mkdtempSync(join(tmpdir(), 'souk-floor-'));
  if (url.startsWith('mysql://')) {
    const now = Date.now();
    const users = Array.from({ length: data.sizes.users }, (_, u) => {
      const { disabled: _disabled, ...user } = userFields(u);
      return user;
    });
    const listings = Array.from({ length: data.sizes.listings }, (_, i) => {
      const { updated_at: _updated, ...l } = listingFields(i, data.owner, now);
      return { ...l, images: parsed(l.images), category: parsed(l.category), location: parsed(l.location) };
    });
    const file = join(dir, 'data.json');
    writeFileSync(file, JSON.stringify({ users, listings }));
    return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
  }
  const store = openStore(url, { poolSize: 1, statementTimeoutMs: 600_000, connectTimeoutMs: 10_000 });
  try {
    const users = await store.db
      .selectFrom('users')
      .select(['id', 'login', 'name', 'email', 'phone', 'whatsapp', 'website', 'profile_picture'])
      .orderBy('id')
      .execute();
    // price_type: the duty floor's events carry it (bench/floor-common.mjs listingEventJson).
    const rows = await store.db
      .selectFrom('listings')
      .leftJoin('listing_details', 'listing_details.listing_id', 'listings.id')
      .select(['listings.id', 'owner_id', 'title', 'slug', 'status', 'price', 'images', 'category', 'location', 'price_type'])
      .orderBy('listings.id')
      .execute();
    const listings = rows.map((l) => ({ ...l, images: parsed(l.images), category: parsed(l.category), location: parsed(l.location) }));
    const file = join(dir, 'data.json');
    writeFileSync(file, JSON.stringify({ users, listings }));
    return { file, remove: () => rmSync(dir, { recursive: true, force: true }) };
  } finally {
    await store.close();
  }
}

interface Secrets {
  apiKey: string;
  jwtSecret: string;
}

/** With --instructions: the command the floor runs under and its Node.js flags (callgrind.ts). */
export interface Counted {
  prefix: string[];
  nodeFlags: string[];
}

/** A floor script with the bench's secrets and site address. */
function startFloorScript(
  name: string,
  args: string[],
  secrets: Secrets,
  env: Record<string, string>,
  counted?: Counted,
): Promise<ServerProcess> {
  return startProcess(name, {
    cwd: ROOT,
    args: [...(counted?.nodeFlags ?? []), ...args],
    env: { API_KEY: secrets.apiKey, JWT_SECRET: secrets.jwtSecret, SITE_URL, ...env },
    // Ready once it accepts connections (floor-toggle.mjs: after loading the whole data set); with duties it logs, as Souk does.
    ready: 'port',
    ...(counted ? { prefix: counted.prefix } : {}),
    startupMs: counted ? 1_200_000 : 300_000,
  });
}

/** Starts the floor on the document; its database goes in the document's folder (TMPDIR). `env`: dutyFloorEnv for its duty rows. */
export function startFloor(
  name: string,
  data: FloorData,
  secrets: Secrets,
  counted?: Counted,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  return startFloorScript(name, [FLOOR_SCRIPT, data.file], secrets, { TMPDIR: resolve(data.file, '..'), ...env }, counted);
}

/** Starts the read floor on Souk's SQLite file, which it opens read-only. */
export function startFloorReads(name: string, sqliteFile: string, secrets: Secrets, counted?: Counted): Promise<ServerProcess> {
  return startFloorScript(name, [FLOOR_READS_SCRIPT, sqliteFile], secrets, {}, counted);
}

interface Answer {
  status: number;
  body: Buffer;
}

async function get(url: string, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(url, { headers });
  return { status: res.status, body: Buffer.from(await res.arrayBuffer()) };
}

/** Where two bodies first differ, with some bytes around it from each. */
function describeDifference(souk: Answer, floor: Answer): string {
  let at = 0;
  while (at < souk.body.length && at < floor.body.length && souk.body[at] === floor.body[at]) at++;
  const around = (b: Buffer) => JSON.stringify(b.subarray(Math.max(0, at - 60), at + 100).toString('latin1'));
  return (
    `HTTP ${souk.status} and ${floor.status}, ${souk.body.length} and ${floor.body.length} bytes, first different byte at ${at}:\n` +
    `  Souk:  ${around(souk.body)}\n  floor: ${around(floor.body)}`
  );
}

/**
 * Sends each GET to Souk and to the floor as `user` (its token and the API key) and compares
 * the replies' status and body bytes; the first difference, described, or null when none.
 */
export async function firstDifference(
  soukUrl: string,
  floorUrl: string,
  requests: { path: string; user: number }[],
  headersOf: (user: number) => Record<string, string>,
): Promise<string | null> {
  for (const { path, user } of requests) {
    const [souk, floor] = await Promise.all([get(soukUrl + path, headersOf(user)), get(floorUrl + path, headersOf(user))]);
    // An error reply would compare nothing the row measures: the sample must be answered.
    if (souk.status !== 200 || floor.status !== 200 || !souk.body.equals(floor.body)) {
      return `GET ${path} as user index ${user}: ${describeDifference(souk, floor)}`;
    }
  }
  return null;
}

/** Adds every user's favourites of the data set, in the data set's order, through the floor's toggle. */
export async function primeFavourites(server: ServerProcess, data: Dataset, tokens: string[], connections: number): Promise<void> {
  let next = 0;
  const failures: string[] = [];
  await withWorkers(connections, async (agent) => {
    const u = next++;
    if (u >= data.sizes.users) return false;
    const headers = { 'x-api-key': data.apiKey, authorization: `Bearer ${tokens[u]}` };
    for (let k = data.favStart[u]!; k < data.favStart[u + 1]!; k++) {
      const reply = await postJson(agent, server.url + PATHS.toggle, headers, `{"listing_id":${listingId(data.favListing[k]!)}}`);
      if (reply.status !== 200 && failures.length < 3) failures.push(`HTTP ${reply.status}: ${reply.body.slice(0, 200)}`);
    }
    return true;
  });
  if (failures.length) throw new Error(`priming the floor's favourites failed:\n${failures.join('\n')}`);
}
