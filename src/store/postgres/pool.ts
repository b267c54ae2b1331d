/** The PostgreSQL connection pool under Kysely and under the request path's runner (runner.ts). */
import { createRequire } from 'node:module';
import type { Pool } from 'pg';
import type { DbOptions } from '../common/store.js';

const require = createRequire(import.meta.url);
let pgDriver: typeof import('pg') | undefined;

/** pg is loaded on first use: an SQLite installation never needs it (with ioredis, ~10 MB of RSS). */
function loadPg(): typeof import('pg') {
  if (!pgDriver) {
    pgDriver = require('pg') as typeof import('pg');
    // 64-bit ids and epoch-millisecond times come back as JS numbers (safe up to 2^53-1).
    pgDriver.types.setTypeParser(pgDriver.types.builtins.INT8, (value: string) => Number(value));
  }
  return pgDriver;
}

export function postgresPool(url: string, opts: DbOptions): Pool {
  const pool = new (loadPg().Pool)({
    connectionString: url,
    max: opts.poolSize,
    connectionTimeoutMillis: opts.connectTimeoutMs,
    statement_timeout: opts.statementTimeoutMs,
    query_timeout: opts.statementTimeoutMs + 1000,
    idleTimeoutMillis: 30_000,
  });
  // A client whose server goes away emits 'error': the pool reports idle ones here and drops them.
  pool.on('error', () => {});
  // A checked-out one fails its query (answered 503) but would also emit 'error' with no
  // listener, which would crash the process; the pool discards it on release.
  pool.on('connect', (client) => client.on('error', () => {}));
  return pool;
}
