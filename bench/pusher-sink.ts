/**
 * With --pusher: a local stand-in for Pusher's HTTP API that takes every batch and drops it, and
 * the settings that turn Souk's Pusher events on against it (docs/pusher.md), so that the rows
 * measure a Souk that writes a Pusher outbox row per event and sends them, as an operator's with
 * PUSHER_URL set does. Signatures are not checked here: the tests do that.
 *
 * A row's cost must include sending what its requests caused: `drained` waits until the outbox
 * holds no pending row, and the bench calls it after the warm-up (the warm-up's events are not
 * the row's) and before it stops measuring (the row's are).
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import pg from 'pg';
import type { BenchDatabase } from './database.js';
import { sqlitePath } from '../src/store/sqlite/connection.js';

export interface PusherSink {
  /** PUSHER_URL for each Souk. */
  env: Record<string, string>;
  /** Events taken so far. */
  events(): number;
  /**
   * Waits until the outbox holds no pending row (none due nor waiting for a retry), at most
   * `limitS` seconds; whether it drained.
   */
  drained(limitS: number): Promise<boolean>;
  close(): Promise<void>;
}

/** How many Pusher outbox rows are pending, read on the bench's own connection (not counted as Souk's). */
async function pendingCounter(db: BenchDatabase): Promise<{ pending(): Promise<number>; close(): Promise<void> }> {
  const sql = (table: string) => `select count(*) as n from ${table} where status = 'pending'`;
  if (db.dialect === 'postgres') {
    const client = new pg.Client({ connectionString: db.adminUrl });
    await client.connect();
    return {
      pending: async () => Number((await client.query<{ n: string }>(sql(`"${db.appName}".pusher_outbox`))).rows[0]!.n),
      close: () => client.end(),
    };
  }
  const { DatabaseSync } = createRequire(import.meta.url)('node:sqlite') as { DatabaseSync: SqliteFile };
  const file = new DatabaseSync(sqlitePath(db.url), { readOnly: true });
  const count = file.prepare(sql('pusher_outbox'));
  return { pending: async () => Number((count.get() as { n: number }).n), close: async () => file.close() };
}

/** The little of node:sqlite used here (its types are not in this Node.js's @types). */
type SqliteFile = new (path: string, o: { readOnly: boolean }) => { prepare(sql: string): { get(): unknown }; close(): void };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function startPusherSink(db: BenchDatabase): Promise<PusherSink> {
  let events = 0;
  const server = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => {
      try {
        events += (JSON.parse(body) as { batch?: unknown[] }).batch?.length ?? 1;
      } catch {
        // Counted as nothing: the bench reads only how many arrived.
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve, reject) => server.listen(0, '127.0.0.1', resolve).once('error', reject));
  const { port } = server.address() as AddressInfo;
  const outbox = await pendingCounter(db);
  return {
    // A long timeout: under valgrind (--instructions) the sink's answers are late by Souk's clock, not lost.
    env: { PUSHER_URL: `http://bench-key:bench-secret@127.0.0.1:${port}/apps/1`, PUSHER_CLUSTER: 'mt1', PUSHER_TIMEOUT_MS: '60000' },
    events: () => events,
    async drained(limitS) {
      const until = performance.now() + limitS * 1000;
      while ((await outbox.pending()) > 0) {
        if (performance.now() > until) return false;
        await sleep(50);
      }
      return true;
    },
    close: async () => {
      await outbox.close();
      await new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
