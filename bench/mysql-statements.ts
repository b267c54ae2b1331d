/**
 * What MariaDB does for each statement of Souk's toggle, conversation start and conversation read
 * on the bench's WordPress data set, and what its settings make a commit cost:
 *
 *   DATABASE_URL=mysql://root@127.0.0.1:3306/bench npx tsx bench/mysql-statements.ts [--quick]
 *
 * Souk runs in this process (as --count-queries does) and answers the bench's own requests; the
 * statements of the last one of each row are recorded at mysql2 with their values (those sent
 * together one by one, and the round trips counted), then each is run
 * again REPEAT times alone on a connection of its own, inside a transaction rolled back after, and
 * measured there: the CPU time of that connection's MariaDB thread (/proc, so MariaDB on this
 * machine) and its Handler_* counters (rows read by key, next, scan; written), per execution. A
 * statement's round trip costs the client too; that is not counted here.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection, type Connection } from 'mysql2/promise';
import { loadConfig } from '../src/config.js';
import { createSouk } from '../src/server.js';
import { freshBenchDatabase } from './database.js';
import { buildDataset, SITE_URL } from './dataset.js';
import { parseOptions } from './options.js';
import { PATHS, scenario, signTokens, type RowName } from './scenarios.js';

const REPEAT = 2000;
const ROWS: RowName[] = ['toggle', 'start-new', 'chat-poll'];
const SAMPLES = 30;

interface Recorded {
  sql: string;
  values: unknown[];
}
let recording: Recorded[] | undefined;
/** Queries sent to MariaDB while recording: round trips. */
let trips = 0;

/** Every statement Kysely sends goes through mysql2's Connection.query (see count-queries.ts). */
function record(): void {
  const mysql = createRequire(import.meta.url)('mysql2') as { Connection: { prototype: Record<string, (...a: unknown[]) => unknown> } };
  const query = mysql.Connection.prototype.query!;
  mysql.Connection.prototype.query = function (this: object, ...args: unknown[]) {
    const q = args[0];
    const sql = typeof q === 'string' ? q : String((q as { sql?: string })?.sql ?? q);
    if (recording) {
      trips++;
      // Statements sent together (context.ts, together) are measured one by one: split where they
      // were joined, each with its share of the values (no statement has a ? but its placeholders).
      let values = Array.isArray(args[1]) ? (args[1] as unknown[]) : [];
      const parts = sql.split(';\n');
      for (const part of parts) {
        const n = part.split('?').length - 1;
        recording.push({ sql: part, values: values.slice(0, n) });
        values = values.slice(n);
      }
      // The recorded request leaves the database as it found it, so its statements are measured on
      // the state they ran on (a start's search for the open conversation finds none).
      if (/^\s*commit\s*$/i.test(parts.at(-1)!)) args[0] = parts.slice(0, -1).concat('rollback').join(';\n');
    }
    return query.apply(this, args);
  };
}

/** CPU seconds of one MariaDB thread, by its TID (information_schema.processlist, MariaDB 10.5+). */
function threadCpu(tid: number): number {
  const tgid = /^Tgid:\s+(\d+)$/m.exec(readFileSync(`/proc/${tid}/status`, 'utf8'))?.[1];
  const stat = readFileSync(`/proc/${tgid}/task/${tid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

async function status(c: Connection, scope: 'session' | 'global', like: string): Promise<Map<string, number>> {
  const [rows] = await c.query(`show ${scope} status like ?`, [like]);
  return new Map((rows as { Variable_name: string; Value: string }[]).map((r) => [r.Variable_name, Number(r.Value)]));
}

const HANDLERS = ['Handler_read_key', 'Handler_read_next', 'Handler_read_prev', 'Handler_read_rnd_next', 'Handler_write', 'Handler_update'];
const short = (name: string) => name.replace('Handler_', '').replace('read_', 'r_');

/**
 * Runs one statement REPEAT times, each in a transaction rolled back after (so an insert can be
 * repeated); per execution: the thread's CPU µs less that of BEGIN and ROLLBACK alone, and the
 * handler calls.
 */
async function cost(c: Connection, tid: number, st: Recorded | undefined): Promise<{ us: number; handlers: string }> {
  const before = await status(c, 'session', 'Handler_%');
  const cpu = threadCpu(tid);
  for (let i = 0; i < REPEAT; i++) {
    await c.query('begin');
    if (st) await c.query(st.sql, st.values);
    await c.query('rollback');
  }
  const us = ((threadCpu(tid) - cpu) * 1e6) / REPEAT;
  const after = await status(c, 'session', 'Handler_%');
  const handlers = HANDLERS.map((h) => [h, ((after.get(h) ?? 0) - (before.get(h) ?? 0)) / REPEAT] as const)
    .filter(([, n]) => n >= 0.5)
    .map(([h, n]) => `${short(h)} ${Math.round(n)}`)
    .join(', ');
  return { us: us - (st ? baseline : 0), handlers };
}
let baseline = 0;

async function main(): Promise<void> {
  const opts = parseOptions(process.argv.slice(2));
  if (opts === 'help' || !opts.databaseUrl?.startsWith('mysql://'))
    throw new Error('usage: DATABASE_URL=mysql://... npx tsx bench/mysql-statements.ts [--quick]');
  record();
  const db = await freshBenchDatabase(opts.databaseUrl);
  const log = (line: string) => process.stdout.write(`${line}\n`);
  try {
    const data = await buildDataset({ url: db.url, sizes: opts.sizes });
    const souk = await createSouk(
      loadConfig({
        DATABASE_URL: db.url,
        LOG_LEVEL: 'silent',
        SITE_URL,
        SETTINGS_REFRESH_MS: '60000',
        MESSAGES_PER_MINUTE: '0',
        NEW_CONVERSATIONS_PER_HOUR: '0',
      }),
    );
    const tokens = signTokens(data);
    const c = await createConnection({ uri: db.url, charset: 'utf8mb4', dateStrings: true, supportBigNumbers: true });
    try {
      await c.query('set session transaction isolation level read committed');
      const one = async <R>(text: string) => ((await c.query(text)) as unknown as [R[]])[0][0]!;
      const { tid } = await one<{ tid: number }>('select tid from information_schema.processlist where id = connection_id()');
      const [vars] = await c.query(
        "show variables where variable_name in ('version', 'innodb_flush_log_at_trx_commit', 'sync_binlog', 'log_bin', 'innodb_buffer_pool_size', 'innodb_flush_method')",
      );
      baseline = (await cost(c, tid, undefined)).us;
      log(`MariaDB: ${(vars as { Variable_name: string; Value: string }[]).map((v) => `${v.Variable_name}=${v.Value}`).join(', ')}`);
      for (const name of ROWS) {
        let sc = scenario(name, data);
        let last: Recorded[] = [];
        // The row's first requests warm Souk's caches as its warm-up does; then the row starts again
        // (toggle and read: the same first request, now with its user and listing kept; start: a new pair).
        for (let i = 0; i <= SAMPLES; i++) {
          if (i === SAMPLES) sc = scenario(name, data);
          const ctx = {};
          const { body, path, user } = sc.next(ctx);
          const headers = { 'x-api-key': data.apiKey, authorization: `Bearer ${tokens[user]}` };
          if (i === SAMPLES) {
            recording = [];
            trips = 0;
          }
          const res = await souk.app.inject(
            sc.method === 'GET'
              ? { method: 'GET', url: path ?? sc.path, headers }
              : { method: 'POST', url: path ?? sc.path, payload: body, headers: { 'content-type': 'application/json', ...headers } },
          );
          last = recording ?? last;
          recording = undefined;
          const problem = sc.verify(res.statusCode, res.body, ctx);
          if (problem) throw new Error(`${name}: ${problem}: ${res.body.slice(0, 300)}`);
        }
        let total = 0;
        log(
          `\n${name} (${sc.method ?? 'POST'} ${sc.path === PATHS.start ? 'my/chat/conversation' : sc.path.split('/v1/')[1]}): ` +
            `${last.length} statements in ${trips} round trips; MariaDB thread CPU µs per execution, handler calls:`,
        );
        for (const st of last) {
          const text = st.sql.replace(/\s+/g, ' ').trim();
          if (/^(begin|commit|rollback)$/i.test(text)) {
            log(`       -  ${text}`);
            continue;
          }
          const { us, handlers } = await cost(c, tid, st);
          total += us;
          log(
            `  ${String(Math.round(us)).padStart(6)}  ${text.length > 110 ? `${text.slice(0, 107)}...` : text}${handlers ? `  [${handlers}]` : ''}`,
          );
        }
        log(`  ${String(Math.round(total)).padStart(6)}  in all, without BEGIN and COMMIT (${Math.round(baseline)} µs the two, alone)`);
      }
      // A commit's cost: the redo log written and, with innodb_flush_log_at_trx_commit=1, synced.
      const { id } = await one<{ id: number }>('select max(umeta_id) as id from wp_usermeta');
      const n = 500;
      const update = { sql: 'update wp_usermeta set meta_value = concat(meta_value, ?) where umeta_id = ?', values: ['', id] };
      const rolledBack = (await cost(c, tid, update)).us + baseline;
      const before = await status(c, 'global', 'Innodb_%');
      const cpu = threadCpu(tid);
      for (let i = 0; i < n; i++) {
        await c.query('begin');
        await c.query(update.sql, [i % 2 ? 'x' : '', id]);
        await c.query('commit');
      }
      const us = ((threadCpu(tid) - cpu) * 1e6) / n;
      const after = await status(c, 'global', 'Innodb_%');
      const per = (name: string) => (((after.get(name) ?? 0) - (before.get(name) ?? 0)) / n).toFixed(2);
      log(
        `\nBEGIN, a one-row UPDATE, COMMIT, one after the other ${n} times: ${Math.round(us)} µs of the thread's CPU each ` +
          `(${Math.round(rolledBack)} µs rolled back instead); per commit, server-wide: ${per('Innodb_log_writes')} redo log writes, ` +
          `${per('Innodb_data_fsyncs')} fsyncs (a commit waits for its own with innodb_flush_log_at_trx_commit=1; concurrent ones share one)`,
      );
    } finally {
      await c.end();
      await souk.close();
    }
  } finally {
    await db.drop();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
