/**
 * The `pgbench` row: PostgreSQL's own ceiling for a small write transaction on this machine, run by
 * PostgreSQL's `pgbench -N` (its simple-update script: one UPDATE, one SELECT and one INSERT in a
 * transaction) on the server the bench's Souk rows use. It sets the PostgreSQL rows against what the
 * database alone can commit, as the bare row sets every row against what node:http alone can answer.
 * Its tables live in a schema of their own, dropped after the row.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { machineBusySeconds } from './processes.js';

/** The settings of the reference measurement: scale 10, 10 clients on 2 threads. */
export const PGBENCH = { scale: 10, clients: 10, threads: 2 } as const;

export interface PgbenchResult {
  tps: number;
  transactions: number;
  failed: number;
  latencyAverageMs: number;
  seconds: number;
  /** CPU seconds the whole machine was busy during the run (pgbench, the backends, and anything else). */
  machineBusySeconds: number | null;
}

function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('pgbench', args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (out += d.toString()));
    child.on('error', (err) => reject(new Error(`pgbench could not start (${err.message}): install PostgreSQL's client tools`)));
    child.on('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`pgbench ${args[0]} exited with ${code}:\n${out.slice(-2000)}`)),
    );
  });
}

/** The figures of pgbench's summary (PostgreSQL 13 to 17 print these lines). */
export function parseSummary(out: string, seconds: number): Omit<PgbenchResult, 'machineBusySeconds'> {
  const figure = (re: RegExp) => {
    const m = re.exec(out);
    return m ? Number(m[1]) : undefined;
  };
  const tps = figure(/^tps = ([\d.]+) \(without initial connection time\)/m) ?? figure(/^tps = ([\d.]+)/m);
  const transactions = figure(/^number of transactions actually processed: (\d+)/m);
  if (tps === undefined || transactions === undefined) throw new Error(`pgbench printed no summary:\n${out.slice(-2000)}`);
  return {
    tps,
    transactions,
    failed: figure(/^number of failed transactions: (\d+)/m) ?? 0,
    latencyAverageMs: figure(/^latency average = ([\d.]+) ms/m) ?? 0,
    seconds,
  };
}

/** Runs pgbench -i then pgbench -N for `seconds` on the server of `adminUrl`, in a fresh schema it drops after. */
export async function runPgbench(adminUrl: string, seconds: number, scale: number = PGBENCH.scale): Promise<PgbenchResult> {
  const schema = `souk_pgbench_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`create schema ${schema}`);
    // libpq reads the connection string (the URL) as pgbench's database name, and PGOPTIONS from the environment.
    const env = { ...process.env, PGOPTIONS: `-c search_path=${schema}` };
    await run(['-i', '-q', '-s', String(scale), adminUrl], env);
    const busyBefore = machineBusySeconds();
    const out = await run(['-N', '-n', '-c', String(PGBENCH.clients), '-j', String(PGBENCH.threads), '-T', String(seconds), adminUrl], env);
    const busyAfter = machineBusySeconds();
    const busy = busyBefore === undefined || busyAfter === undefined ? null : busyAfter - busyBefore;
    return { ...parseSummary(out, seconds), machineBusySeconds: busy };
  } finally {
    await admin.query(`drop schema if exists ${schema} cascade`).catch(() => {});
    await admin.end();
  }
}
