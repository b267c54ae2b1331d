/**
 * `npm run bench`: builds the data set in a fresh database, then for each row starts the
 * server(s) under test (bare, the floor, Souk) as separate processes, warms up, drives them with autocannon on
 * loopback for a fixed time and records throughput, latency, errors, peak RSS and CPU.
 * Prints one table and writes the same as JSON under bench/results/. See docs/benchmark.md.
 */
import { startMailSink, type MailSink } from './mail-sink.js';
import { startPusherSink, type PusherSink } from './pusher-sink.js';
import { preparePhoto } from './photo.js';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createConnection as createMysqlConnection } from 'mysql2/promise';
import { freshBenchDatabase, keptBenchDatabase, redact, type BenchDatabase } from './database.js';
import { consoleSession, type ConsoleSession } from './console-session.js';
import { buildDataset, READER_FAVOURITES, READER_THREADS, THREAD_MESSAGES, type Dataset } from './dataset.js';
import { runLoad, type LoadOptions, type LoadResult } from './load.js';
import { parseOptions, USAGE, type BenchOptions } from './options.js';
import {
  cpuSeconds,
  machineBusySeconds,
  peakRss,
  PROFILE_DIR,
  startBare,
  startMysqlFloor,
  startPostgresFloor,
  startSouk,
  dutyFloorEnv,
  type ServerProcess,
} from './processes.js';
import { rssMb } from '../tools/processes.js';
import { formatSummary, summarise } from './profile-summary.js';
import {
  formatCpuPerRequest,
  formatHeavy,
  formatInstructions,
  formatPgbenchShares,
  formatStreams,
  formatTable,
  LABELS,
  writeResults,
  type Row,
  type StreamFigures,
} from './report.js';
import { Delivery, openFilesLimit, openStreams, percentile, streamUsers, type StreamFleet } from './streams.js';
import { callgrindPrefix, COUNTED_NODE_FLAGS, startCounting, stopCounting } from './callgrind.js';
import {
  DATABASE_FLOOR_OF,
  DUTY_FLOOR_OF,
  FLOOR_OF,
  holdsStreams,
  isDutyFloorRow,
  isFloorReadRow,
  isFloorRow,
  isMysqlFloorRow,
  isPgFloorRow,
  isReferenceRow,
  isServerApiRow,
  isConsoleRow,
  isHeavyRow,
  consoleScenario,
  LOGIN_BURST_CONNECTIONS,
  loginScenario,
  onBenchDatabase,
  PREPARE_SHARE,
  readSample,
  ROWS,
  scenario,
  signTokens,
  type RowName,
  type Scenario,
} from './scenarios.js';
import { firstDifference, FLOOR_SCRIPT, primeFavourites, startFloor, startFloorReads, writeFloorData, type FloorData } from './floor.js';
import { sqlitePath } from '../src/store/sqlite/connection.js';
import { PGBENCH, runPgbench } from './pgbench.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const log = (line: string) => process.stdout.write(`${line}\n`);

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestMtime(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/** bin/souk runs dist/: build it when asked, or when it is missing or older than src/. */
function ensureBuilt(mode: BenchOptions['build']): void {
  if (mode === 'never') return;
  const built = join(ROOT, 'dist/cli/main.js');
  if (mode === 'auto' && existsSync(built) && statSync(built).mtimeMs >= newestMtime(join(ROOT, 'src'))) return;
  log('building dist/ (npm run build) ...');
  const result = spawnSync('npm', ['run', '--silent', 'build'], { cwd: ROOT, stdio: 'inherit' });
  if (result.status !== 0) throw new Error('npm run build failed');
}

function gitCommit(): string | undefined {
  const r = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim() !== '';
  return r.status === 0 ? `${r.stdout.trim()}${dirty ? '-dirty' : ''}` : undefined;
}

/** CPU seconds of one thread (a MariaDB connection's): /proc/TID/stat would give its whole process's. */
function threadCpuSeconds(tid: number): number | undefined {
  try {
    const tgid = /^Tgid:\s+(\d+)$/m.exec(readFileSync(`/proc/${tid}/status`, 'utf8'))?.[1];
    const stat = readFileSync(`/proc/${tgid}/task/${tid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return undefined;
  }
}

/**
 * The database's CPU time serving Souk's connections, when the server runs on this machine: the
 * PostgreSQL backends (processes) of Souk's application_name, or the MariaDB threads (one per
 * connection: `TID` of information_schema.processlist, MariaDB 10.5+) connected to the bench's
 * database. MariaDB's background threads (InnoDB's log writer, page cleaner, purge) are not
 * counted: their CPU falls in "other".
 */
class DatabaseCpu {
  private constructor(
    private readonly backends: (() => Promise<number[]>) | undefined,
    private readonly close_: () => Promise<void>,
    private readonly cpuOf: (id: number) => number | undefined = cpuSeconds,
    /** MariaDB: a connection may start on a cached thread, whose CPU time is not zero. */
    private readonly threadsReused = false,
  ) {}

  static async open(db: BenchDatabase): Promise<DatabaseCpu> {
    const none = new DatabaseCpu(undefined, async () => {});
    if (!db.adminUrl) return none;
    const host = new URL(db.adminUrl).hostname;
    if (!['127.0.0.1', 'localhost', '[::1]', '::1', ''].includes(host)) return none;
    if (db.dialect === 'mysql') {
      const c = await createMysqlConnection({ uri: db.adminUrl });
      try {
        await c.query('select tid from information_schema.processlist limit 1');
      } catch {
        await c.end();
        return none; // MySQL (not MariaDB): no thread ids to read.
      }
      return new DatabaseCpu(
        async () => {
          const [rows] = await c.query('select tid from information_schema.processlist where db = ? and id <> connection_id()', [
            db.databaseName,
          ]);
          return (rows as { tid: number }[]).map((r) => Number(r.tid));
        },
        () => c.end(),
        threadCpuSeconds,
        true,
      );
    }
    if (db.dialect !== 'postgres') return none;
    const client = new pg.Client({ connectionString: db.adminUrl });
    await client.connect();
    return new DatabaseCpu(
      async () =>
        (await client.query<{ pid: number }>('select pid from pg_stat_activity where application_name = $1', [db.appName])).rows.map(
          (r) => r.pid,
        ),
      () => client.end(),
    );
  }

  /** CPU seconds of each backend now. */
  async snapshot(): Promise<Map<number, number> | undefined> {
    if (!this.backends) return undefined;
    const out = new Map<number, number>();
    for (const pid of await this.backends()) {
      const s = this.cpuOf(pid);
      if (s !== undefined) out.set(pid, s);
    }
    return out;
  }

  used(before: Map<number, number> | undefined, after: Map<number, number> | undefined): number | null {
    if (!before || !after) return null;
    let total = 0;
    // A backend new since `before` counts from zero: a PostgreSQL process is new, but MariaDB hands a
    // new connection a cached thread that ran other connections before, so there it is left out.
    for (const [pid, s] of after) {
      const was = before.get(pid);
      if (was !== undefined || !this.threadsReused) total += s - (was ?? 0);
    }
    return total;
  }

  async close(): Promise<void> {
    await this.close_();
  }
}

interface RowContext {
  opts: BenchOptions;
  db: BenchDatabase;
  data: Dataset;
  tokens: string[];
  dbCpu: DatabaseCpu;
  stamp: string;
  /** The floor's import document, when a floor row runs. */
  floor: FloorData | undefined;
  profiles: { row: RowName; instance: number; file: string }[];
  /** With --mail: the settings that send Souk's mail to the local sink. */
  mailEnv: Record<string, string> | undefined;
  /** With --pusher: the settings that send Souk's Pusher events to the local sink. */
  pusherEnv: Record<string, string> | undefined;
  /** With --pusher: the sink, whose outbox a row waits to see drained (pusher-sink.ts). */
  pusherSink: PusherSink | undefined;
}

/** With --pusher: the most a row waits for its Pusher events to be sent after its load. */
const PUSHER_DRAIN_LIMIT_S = 600;

/**
 * With --pusher, waits until every event the requests so far caused is sent; what the measured
 * window's events were and how long their sending went on after the load (none without --pusher).
 */
async function drainPusher(ctx: RowContext, eventsBefore?: number): Promise<Record<string, number> | undefined> {
  const sink = ctx.pusherSink;
  if (!sink) return undefined;
  const t = performance.now();
  if (!(await sink.drained(PUSHER_DRAIN_LIMIT_S))) log(`  ! the Pusher outbox still had pending events after ${PUSHER_DRAIN_LIMIT_S} s`);
  return { pusherEvents: sink.events() - (eventsBefore ?? 0), pusherDrainSeconds: Math.round(performance.now() - t) / 1000 };
}

const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);

/** With --instructions: where each server's callgrind counts go, by process id. */
const callgrindFiles = new Map<number, string>();

/** Requests the read floor's replies are compared on, per row: the row's first ones, and other pages. */
const BYTE_SAMPLE = 24;

/**
 * Sends a sample of the row's requests to the read floor and to a Souk on the same database, and
 * throws, showing the first differing bytes, unless every reply is the same: a floor that drifted
 * from Souk's replies would measure other work.
 */
async function checkSameReplies(name: RowName, floor: ServerProcess, ctx: RowContext): Promise<void> {
  const souk = await startSouk('souk#compared', { databaseUrl: ctx.db.url, production: ctx.opts.production });
  try {
    const sample = readSample(ctx.data, name, BYTE_SAMPLE);
    const headers = (user: number) => ({ 'x-api-key': ctx.data.apiKey, authorization: `Bearer ${ctx.tokens[user]}` });
    const difference = await firstDifference(souk.url, floor.url, sample, headers);
    if (difference) throw new Error(`${name}: the floor's reply is not Souk's, so its row would not measure the same work.\n${difference}`);
    log(`  ${sample.length} replies of the floor byte for byte Souk's`);
  } finally {
    await souk.stop();
  }
}

/**
 * The floor is one process: floor-toggle.mjs on its own SQLite file, whatever the database and
 * --instances of Souk's rows; floor-reads.mjs on Souk's SQLite file, its replies checked first.
 */
async function startFloorRow(name: RowName, ctx: RowContext): Promise<ServerProcess[]> {
  const reads = isFloorReadRow(name);
  const outFile = join(PROFILE_DIR, `callgrind-floor-${name}-${ctx.stamp}.out`);
  const counted = ctx.opts.instructions ? { prefix: callgrindPrefix(outFile), nodeFlags: COUNTED_NODE_FLAGS } : undefined;
  const floor = reads
    ? await startFloorReads('floor', sqlitePath(ctx.db.url), ctx.data, counted)
    : await startFloor('floor', ctx.floor!, ctx.data, counted, isDutyFloorRow(name) ? dutyFloorEnv(ctx.opts.production) : {});
  if (counted) callgrindFiles.set(floor.pid, outFile);
  try {
    if (name === 'floor-toggle' || name === 'floor-duties-toggle') await primeFavourites(floor, ctx.data, ctx.tokens, ctx.opts.connections);
    if (reads) await checkSameReplies(name, floor, ctx);
    return [floor];
  } catch (err) {
    await floor.stop();
    throw err;
  }
}

/** A floor on the bench's own database; the PostgreSQL floor's conversation read is checked against Souk's bytes first. */
async function startDatabaseFloorRow(name: RowName, ctx: RowContext): Promise<ServerProcess[]> {
  if (isMysqlFloorRow(name)) return [await startMysqlFloor(ctx.db.url, ctx.data)];
  const floor = await startPostgresFloor(ctx.db.url, ctx.data, isDutyFloorRow(name) ? dutyFloorEnv(ctx.opts.production) : undefined);
  try {
    if (name === 'floor-pg-chat-poll') await checkSameReplies(name, floor, ctx);
    return [floor];
  } catch (err) {
    await floor.stop();
    throw err;
  }
}

async function startServers(name: RowName, ctx: RowContext): Promise<ServerProcess[]> {
  if (onBenchDatabase(name)) return startDatabaseFloorRow(name, ctx);
  if (isFloorRow(name)) return startFloorRow(name, ctx);
  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < ctx.opts.instances; i++) {
      const outFile = join(PROFILE_DIR, `callgrind-${ctx.db.dialect}-${name}-${ctx.stamp}-${i + 1}.out`);
      const prefix = ctx.opts.instructions ? callgrindPrefix(outFile) : undefined;
      const nodeFlags = ctx.opts.instructions ? COUNTED_NODE_FLAGS : [];
      if (name === 'bare') {
        servers.push(await startBare(`bare#${i + 1}`, prefix, nodeFlags));
      } else {
        const profileName = ctx.opts.profile ? `${ctx.db.dialect}-${name}-${ctx.stamp}-${i + 1}` : undefined;
        // MAX_CONNECTIONS (10,000 by default) counts the streams too: room for them and the load. Every
        // stream comes from the bench's one address, so the cap per address is off for these rows.
        const rowEnv: Record<string, string> | undefined = holdsStreams(name)
          ? { MAX_CONNECTIONS: String(Math.max(10_000, ctx.opts.streams + ctx.opts.connections + 1_000)), MAX_CONNECTIONS_PER_ADDRESS: '0' }
          : name === 'message-photo'
            ? // The uploaded photos go to a folder of the run's own, whatever the database.
              { FILES_DIR: join(tmpdir(), `souk-bench-files-${ctx.stamp}`) }
            : isServerApiRow(name) && !ctx.opts.production
              ? // One key sends every request: its limit (SERVER_API_RATE_LIMIT) would measure the limit, not the server.
                { SERVER_API_RATE_LIMIT: '0' }
              : undefined;
        const env = ctx.mailEnv || ctx.pusherEnv || rowEnv ? { ...ctx.mailEnv, ...ctx.pusherEnv, ...rowEnv } : undefined;
        servers.push(
          await startSouk(`souk#${i + 1}`, {
            databaseUrl: ctx.db.url,
            production: ctx.opts.production,
            ...(env ? { env } : {}),
            ...(profileName ? { profileName } : {}),
            ...(prefix ? { prefix, nodeFlags } : {}),
          }),
        );
        if (profileName) ctx.profiles.push({ row: name, instance: i + 1, file: join(PROFILE_DIR, `${profileName}.cpuprofile`) });
      }
      if (prefix) callgrindFiles.set(servers.at(-1)!.pid, outFile);
    }
    return servers;
  } catch (err) {
    await Promise.all(servers.map((s) => s.stop()));
    throw err;
  }
}

/**
 * Writes the dirty pages of the page cache to disk, so that no row pays for the writes of what ran
 * before it: the kernel writes a page back some 30 s after it was dirtied (vm.dirty_expire_centisecs),
 * which put the data-set build's hundreds of MB in the middle of a later row. Seconds it took.
 */
function settleWrites(): number {
  const t = performance.now();
  spawnSync('sync', { stdio: 'ignore' });
  return (performance.now() - t) / 1000;
}

/** What the sign-ins beside a row did, for its counters. */
function burstCounters(burst: LoadResult): Record<string, number> {
  return { signInsPerSecond: Math.round(burst.requests / burst.seconds), signInErrors: burst.errors, signInP99Ms: burst.latencyMs.p99 };
}

/** What the moderator paging beside a row did, for its counters. */
function consoleCounters(pages: LoadResult): Record<string, number> {
  return {
    consolePagesPerSecond: Math.round(pages.requests / pages.seconds),
    consoleErrors: pages.errors,
    consoleP99Ms: pages.latencyMs.p99,
  };
}

/** The console rows' scenario, with a member signed in to the first Souk process. */
async function consoleRowScenario(
  name: RowName,
  server: ServerProcess,
  ctx: RowContext,
): Promise<{ sc: Scenario; session: ConsoleSession }> {
  const session = await consoleSession(server.url, ctx.db.url, ctx.data);
  if (name === 'toggle-under-console') return { sc: scenario(name, ctx.data), session };
  return { sc: consoleScenario(ctx.data, name as 'console-reports' | 'console-user' | 'console-conversation', session), session };
}

/** CPU used from start() to end(): the servers, the database serving them, this process, and the rest of the machine. */
interface CpuWindow {
  serverCpu: number;
  dbCpu: number | null;
  genCpu: number;
  others: number | null;
}

async function cpuWindow(servers: ServerProcess[], onSouk: boolean, ctx: RowContext): Promise<{ end(): Promise<CpuWindow> }> {
  const cpuBefore = servers.map((s) => cpuSeconds(s.pid) ?? 0);
  const dbBefore = onSouk ? await ctx.dbCpu.snapshot() : undefined;
  const genBefore = process.cpuUsage();
  const busyBefore = machineBusySeconds();
  return {
    async end() {
      const busyAfter = machineBusySeconds();
      const gen = process.cpuUsage(genBefore);
      const dbAfter = onSouk ? await ctx.dbCpu.snapshot() : undefined;
      const serverCpu = servers.reduce((sum, s, i) => sum + ((cpuSeconds(s.pid) ?? 0) - cpuBefore[i]!), 0);
      const dbCpu = ctx.dbCpu.used(dbBefore, dbAfter);
      const genCpu = (gen.user + gen.system) / 1e6;
      // Everything else the machine did meanwhile: other people's work (and PostgreSQL's own background processes).
      const others =
        busyBefore === undefined || busyAfter === undefined
          ? null
          : Math.max(0, busyAfter - busyBefore - serverCpu - (dbCpu ?? 0) - genCpu);
      return { serverCpu, dbCpu, genCpu, others };
    },
  };
}

/** The table's row from a measured window's load and CPU. */
function rowOf(
  name: RowName,
  servers: ServerProcess[],
  result: LoadResult,
  cpu: CpuWindow,
  loadStart: number,
  instructions: Row['instructionsPerRequest'],
): Row {
  const { serverCpu, dbCpu, genCpu, others } = cpu;
  const rss = servers.map((s) => (peakRss(s.pid) ?? 0) / 2 ** 20);
  const pct = (cpuS: number) => (100 * cpuS) / result.seconds;
  const perRequest = (cpuS: number) => (result.requests ? (1000 * cpuS) / result.requests : 0);
  return {
    name,
    label: LABELS[name],
    rps: result.requests / result.seconds,
    p50Ms: result.latencyMs.p50,
    p99Ms: result.latencyMs.p99,
    maxMs: result.latencyMs.max,
    errors: result.errors,
    peakRssMb: rss.reduce((a, b) => a + b, 0),
    peakRssPerProcessMb: rss,
    pctOfBare: null,
    pctOfFloor: null,
    cpuPctOfFloor: null,
    cpu: {
      servers: pct(serverCpu),
      database: dbCpu === null ? null : pct(dbCpu),
      generator: pct(genCpu),
      others: others === null ? null : pct(others),
    },
    cpuMsPerRequest: {
      servers: perRequest(serverCpu),
      database: dbCpu === null ? null : perRequest(dbCpu),
      generator: perRequest(genCpu),
    },
    instructionsPerRequest: instructions,
    loadAverage: [loadStart, loadavg()[0]!],
    load: result,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Opens --streams event streams on the first Souk process, one per user from the first, and
 * notes its RSS before and once they are open and idle. Throws when the file descriptors cannot hold them.
 */
async function holdStreams(
  server: ServerProcess,
  ctx: RowContext,
  onMessage?: (user: number, messageId: number, at: number) => void,
): Promise<{ fleet: StreamFleet; figures: StreamFigures }> {
  const n = ctx.opts.streams;
  const limit = openFilesLimit();
  if (limit !== undefined && limit < n + 1_000) {
    throw new Error(
      `${n} streams need ${n + 1_000} open files or more in the bench and in Souk; this process may have ${limit}: raise the hard limit (ulimit -Hn) or give --streams less`,
    );
  }
  const rssBeforeMb = rssMb(server.pid) ?? 0;
  const fleet = await openStreams({
    url: server.url,
    apiKey: ctx.data.apiKey,
    tokens: ctx.tokens,
    users: streamUsers(n),
    ...(onMessage ? { onMessage } : {}),
  });
  log(
    `  ${fleet.opened} of ${n} streams open in ${fleet.openSeconds.toFixed(1)} s${fleet.failed ? `, ${fleet.failed} failed: ${fleet.problems[0]}` : ''}`,
  );
  await sleep(1_000); // the last streams' first reads of the log
  return {
    fleet,
    figures: {
      streams: n,
      opened: fleet.opened,
      failed: fleet.failed,
      dropped: 0,
      openSeconds: fleet.openSeconds,
      rssBeforeMb,
      rssOpenMb: rssMb(server.pid) ?? 0,
      heartbeats: [],
    },
  };
}

/** The pgbench row: PostgreSQL's own clients, so no server of the bench's and no latency percentiles. */
async function runPgbenchRow(ctx: RowContext): Promise<Row> {
  const loadStart = loadavg()[0]!;
  const r = await runPgbench(ctx.db.adminUrl!, ctx.opts.duration);
  const load: LoadResult = {
    seconds: r.seconds,
    requests: r.transactions,
    ok: r.transactions - r.failed,
    non2xx: 0,
    transportErrors: 0,
    badReplies: 0,
    errors: r.failed,
    statusCounts: {},
    problems: [],
    latencyMs: { p50: NaN, p90: NaN, p99: NaN, max: NaN, mean: r.latencyAverageMs },
    counters: { ...PGBENCH, latencyAverageMs: r.latencyAverageMs },
  };
  const busy = r.machineBusySeconds === null ? null : (100 * r.machineBusySeconds) / r.seconds;
  return {
    name: 'pgbench',
    label: LABELS.pgbench,
    rps: r.tps,
    p50Ms: NaN,
    p99Ms: NaN,
    maxMs: NaN,
    errors: r.failed,
    peakRssMb: NaN,
    peakRssPerProcessMb: [],
    pctOfBare: null,
    pctOfFloor: null,
    cpuPctOfFloor: null,
    // pgbench, the backends and whatever else ran: the machine's whole busy time, in the database's column.
    cpu: { servers: 0, database: busy, generator: 0, others: null },
    cpuMsPerRequest: { servers: 0, database: busy === null ? null : (10 * busy * r.seconds) / r.transactions, generator: 0 },
    instructionsPerRequest: null,
    loadAverage: [loadStart, loadavg()[0]!],
    load,
  };
}

/**
 * A row's connections and measured seconds. A slow row (one with a minimum, whose requests queue for
 * seconds) is measured that long; under --smoke it is not, and runs on a few connections instead, so
 * that its replies still come back within the row's second.
 */
function rowLength(sc: Scenario, opts: BenchOptions): { connections: number; seconds: number } {
  const connections = sc.connections ?? opts.connections;
  if (sc.minSeconds === undefined) return { connections, seconds: opts.duration };
  if (opts.smoke) return { connections: Math.min(connections, SMOKE_SLOW_ROW_CONNECTIONS), seconds: opts.duration };
  return { connections, seconds: Math.max(opts.duration, sc.minSeconds) };
}
const SMOKE_SLOW_ROW_CONNECTIONS = 4;

/** A row's prepare (scenarios.ts): its requests, before the warm-up, reported but not measured. */
async function prepareRow(prepare: Scenario, load: Omit<LoadOptions, 'seconds'>, rowSeconds: number): Promise<void> {
  const done = await runLoad(prepare, { ...load, seconds: rowSeconds * PREPARE_SHARE });
  log(`  prepared: ${JSON.stringify(done.counters)}${done.errors > 0 ? `, ${done.errors} errors, e.g. ${done.problems[0] ?? ''}` : ''}`);
}

async function runRow(name: RowName, ctx: RowContext): Promise<Row> {
  const { opts, data, tokens } = ctx;
  if (name === 'pgbench') return runPgbenchRow(ctx);
  const settled = settleWrites();
  if (settled > 1) log(`  (${settled.toFixed(1)} s writing the page cache's dirty pages to disk first)`);
  const servers = await startServers(name, ctx);
  let held: { fleet: StreamFleet; figures: StreamFigures } | undefined;
  try {
    if (name === 'streams') return await runStreamsRow(servers, ctx, (h) => (held = h));
    if (name === 'toggle-streams') held = await holdStreams(servers[0]!, ctx);
    if (name === 'message-photo') await preparePhoto();
    const signedIn = isConsoleRow(name) ? await consoleRowScenario(name, servers[0]!, ctx) : undefined;
    const sc = signedIn?.sc ?? scenario(name, data);
    const { connections, seconds } = rowLength(sc, opts);
    // The console's session is the first process's: its pages go there.
    const targets = signedIn && name !== 'toggle-under-console' ? [servers[0]!.url] : servers.map((s) => s.url);
    const load = { targets, connections, apiKey: data.apiKey, tokens };
    if (sc.prepare) await prepareRow(sc.prepare, load, opts.warmup + seconds);
    const loadStart = loadavg()[0]!;
    const warm = await runLoad(sc, { ...load, seconds: opts.warmup });
    if (warm.errors > 0) log(`  warm-up of ${name}: ${warm.errors} errors, e.g. ${warm.problems[0] ?? ''}`);
    // The warm-up's Pusher events are sent before the measured window, the window's within it.
    await drainPusher(ctx);
    const pusherEventsBefore = ctx.pusherSink?.events();

    if (opts.instructions) servers.forEach((s) => startCounting(s.pid));
    // The MySQL and PostgreSQL floors' database is Souk's: their connections are counted alike.
    const onSouk = name !== 'bare' && (!isFloorRow(name) || onBenchDatabase(name));
    const cpu = await cpuWindow(servers, onSouk, ctx);
    // toggle-under-logins: sign-ins back to back on more connections, all through the measured window.
    const burst =
      name === 'toggle-under-logins'
        ? runLoad(loginScenario(data), { ...load, connections: LOGIN_BURST_CONNECTIONS, seconds: opts.duration + 1 })
        : undefined;
    // toggle-under-console: a moderator goes through the reports queue's pages, back to back, on one connection.
    const moderator =
      name === 'toggle-under-console'
        ? runLoad(consoleScenario(data, 'console-reports', signedIn!.session, true), {
            ...load,
            targets: [servers[0]!.url],
            connections: 1,
            seconds: opts.duration + 1,
          })
        : undefined;
    const result = await runLoad(sc, { ...load, seconds, timeout: sc.timeoutSeconds });
    if (burst) result.counters = { ...result.counters, ...burstCounters(await burst) };
    if (moderator) {
      const pages = await moderator;
      result.counters = { ...result.counters, ...consoleCounters(pages) };
      result.errors += pages.errors;
      result.problems.push(...pages.problems);
    }
    const pusher = await drainPusher(ctx, pusherEventsBefore);
    if (pusher) result.counters = { ...result.counters, ...pusher };
    const counted = opts.instructions ? servers.map((s) => stopCounting(s.pid, callgrindFiles.get(s.pid)!)) : null;
    const used = await cpu.end();
    const row = rowOf(
      name,
      servers,
      result,
      used,
      loadStart,
      counted === null || result.requests === 0
        ? null
        : { main: sum(counted.map((c) => c.main)) / result.requests, all: sum(counted.map((c) => c.all)) / result.requests },
    );
    if (held) {
      held.figures.dropped = held.fleet.droppedByServer();
      held.figures.heartbeats = held.fleet.heartbeatRounds();
      row.streams = held.figures;
      row.errors += held.figures.failed + held.figures.dropped;
      result.problems.push(...held.fleet.problems);
    }
    return row;
  } finally {
    await held?.fleet.close();
    const codes = await Promise.all(servers.map((s) => s.stop()));
    codes.forEach((code, i) => {
      // The floor has no SIGTERM handler: the signal ends it, with no exit code.
      if (code !== 0 && !(isFloorRow(name) && code === null))
        log(`  ${servers[i]!.name} exited with ${code}:\n${servers[i]!.output().slice(-2000)}`);
    });
  }
}

/**
 * The streams row: --streams streams on the first Souk process, then messages at --message-rate
 * (to every process with --instances) from one participant of a data set conversation to the
 * other, who holds a stream; the replies are the table's latencies, the events' delay after them
 * the row's delivery figures.
 */
async function runStreamsRow(
  servers: ServerProcess[],
  ctx: RowContext,
  keep: (h: { fleet: StreamFleet; figures: StreamFigures }) => void,
): Promise<Row> {
  const { opts, data, tokens } = ctx;
  const delivery = new Delivery(data, opts.streams);
  const held = await holdStreams(servers[0]!, ctx, delivery.onMessage);
  keep(held);
  const loadStart = loadavg()[0]!;
  let cpu: { end(): Promise<CpuWindow> } | undefined;
  let used: CpuWindow | undefined;
  const d = await delivery.run({
    targets: servers.map((s) => s.url),
    apiKey: data.apiKey,
    tokens,
    rate: opts.messageRate,
    warmup: opts.warmup,
    seconds: opts.duration,
    window: {
      start: async () => void (cpu = await cpuWindow(servers, true, ctx)),
      end: async () => void (used = await cpu!.end()),
    },
  });
  const lat = d.replyLatencies;
  let total = 0;
  for (const v of lat) total += v;
  const errors = d.failedSends + d.missing + d.duplicates + d.misdelivered + d.unknown;
  const result: LoadResult = {
    seconds: d.seconds,
    requests: d.sent,
    ok: d.sent,
    non2xx: Object.entries(d.statusCounts).reduce((n, [status, count]) => n + (status === '200' ? 0 : count), 0),
    transportErrors: 0,
    badReplies: 0,
    errors,
    statusCounts: d.statusCounts,
    problems: [...d.problems, ...held.fleet.problems],
    latencyMs: {
      p50: percentile(lat, 0.5),
      p90: percentile(lat, 0.9),
      p99: percentile(lat, 0.99),
      max: lat.length ? lat[lat.length - 1]! : 0,
      mean: lat.length ? total / lat.length : 0,
    },
    counters: { delivered: d.deliveredOnce, missing: d.missing, duplicates: d.duplicates, misdelivered: d.misdelivered },
  };
  const row = rowOf('streams', servers, result, used!, loadStart, null);
  // The window's messages over the time their replies took to come: what the server kept up with.
  row.rps = d.achievedRate;
  held.figures.dropped = held.fleet.droppedByServer();
  held.figures.heartbeats = held.fleet.heartbeatRounds();
  const ms = d.deliveryMs;
  held.figures.delivery = {
    rate: d.rate,
    achievedRate: d.achievedRate,
    answered: d.answered,
    deliveredOnce: d.deliveredOnce,
    missing: d.missing,
    duplicates: d.duplicates,
    misdelivered: d.misdelivered,
    unknown: d.unknown,
    failedSends: d.failedSends,
    p50Ms: percentile(ms, 0.5),
    p99Ms: percentile(ms, 0.99),
    maxMs: ms.length ? ms[ms.length - 1]! : 0,
    minMs: ms.length ? ms[0]! : 0,
    maxInFlight: d.maxInFlight,
  };
  row.streams = held.figures;
  row.errors += held.figures.failed + held.figures.dropped;
  return row;
}

async function main(): Promise<void> {
  const parsed = parseOptions(process.argv.slice(2));
  if (parsed === 'help') {
    log(USAGE);
    return;
  }
  const opts = parsed;
  if (opts.apiKeyTiming) {
    const { apiKeyTiming } = await import('./api-key-timing.js');
    apiKeyTiming(log);
    return;
  }
  if (opts.signInRefusals) {
    const { signInRefusals } = await import('./sign-in-refusals.js');
    await signInRefusals(log);
    return;
  }
  if (opts.countQueries) {
    const { countQueries } = await import('./count-queries.js');
    await countQueries(opts);
    return;
  }
  const wallStart = performance.now();
  let rows = (opts.only ?? ROWS) as RowName[];
  for (const r of rows) if (!ROWS.includes(r)) throw new Error(`unknown row "${r}" (rows: ${ROWS.join(', ')})`);
  if (rows.some(onBenchDatabase) && opts.instructions) {
    log('skipping the MySQL and PostgreSQL floor rows: not counted under --instructions');
    rows = rows.filter((r) => !onBenchDatabase(r));
  }
  const togglesFloor = (r: RowName) => isFloorRow(r) && !isFloorReadRow(r) && !onBenchDatabase(r);
  if (rows.some(isMysqlFloorRow) && !/^mysql:/.test(opts.databaseUrl ?? '')) {
    log("skipping the MySQL floor rows: they run on the bench's WordPress database, and this run is not on MySQL");
    rows = rows.filter((r) => !isMysqlFloorRow(r));
  }
  if (rows.some(isPgFloorRow) && !/^postgres(ql)?:/.test(opts.databaseUrl ?? '')) {
    log("skipping the PostgreSQL floor rows: they run on the bench's PostgreSQL schema, and this run is not on PostgreSQL");
    rows = rows.filter((r) => !isPgFloorRow(r));
  }
  // floor-reads.mjs reads Souk's own SQLite file: it has no PostgreSQL nor WordPress twin.
  if (rows.some(isFloorReadRow) && opts.databaseUrl) {
    log("skipping the read floor rows: the read floor reads Souk's SQLite file, and this run is not on SQLite");
    rows = rows.filter((r) => !isFloorReadRow(r));
  }
  if (rows.some(isServerApiRow) && /^mysql:/.test(opts.databaseUrl ?? '')) {
    log("skipping the server API's rows: on a WordPress site the users and listings are the site's, and the upserts answer 409");
    rows = rows.filter((r) => !isServerApiRow(r));
  }
  if (rows.some((r) => isHeavyRow(r) || isConsoleRow(r)) && /^mysql:/.test(opts.databaseUrl ?? '')) {
    log(
      "skipping the heavy users' and the console's rows: they run on SQLite and PostgreSQL (a WordPress site's data set has no heavy users)",
    );
    rows = rows.filter((r) => !isHeavyRow(r) && !isConsoleRow(r));
  }
  if (rows.includes('pgbench') && (!/^postgres(ql)?:/.test(opts.databaseUrl ?? '') || opts.instructions)) {
    if (opts.only) log('skipping the pgbench row: it measures PostgreSQL, and this run is not on PostgreSQL (or counts instructions)');
    rows = rows.filter((r) => r !== 'pgbench');
  }
  // 10,000 streams under valgrind would take hours.
  if (rows.some(holdsStreams) && opts.instructions) {
    log('skipping the stream rows: not counted under --instructions');
    rows = rows.filter((r) => !holdsStreams(r));
  }
  ensureBuilt(opts.build);

  const db = opts.reuse ? keptBenchDatabase(opts.reuse, opts.databaseUrl) : await freshBenchDatabase(opts.databaseUrl);
  let dropped = false;
  let floor: FloorData | undefined;
  let mailSink: MailSink | undefined;
  let pusherSink: PusherSink | undefined;
  const cleanup = async () => {
    if (dropped) return;
    dropped = true;
    floor?.remove();
    if (opts.keep) log(`kept the benchmark database: ${db.location} (DATABASE_URL=${redact(db.url)})`);
    else await db.drop();
  };
  process.once('SIGINT', () => {
    log('interrupted');
    cleanup().finally(() => process.exit(130));
  });

  const stamp = new Date()
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d{3}Z$/, 'Z');
  const dialectLabel = `${db.dialect}${opts.instances > 1 ? `, ${opts.instances} instances` : ''}${opts.mail ? ', mail on' : ''}${opts.pusher ? ', Pusher on' : ''}${opts.scale !== 1 ? `, data set × ${opts.scale}` : ''}, ${opts.production ? 'production settings (limits on and counting, LOG_LEVEL=info)' : 'limits off, LOG_LEVEL=warn'}`;
  const mode = opts.smoke ? 'smoke' : opts.quick ? 'quick' : undefined;
  log(
    `Souk bench (${dialectLabel}${mode ? `, ${mode}` : ''}): ${cpus().length} cores (${cpus()[0]?.model ?? '?'}), Node.js ${process.version}, load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`,
  );
  log(`database: ${db.location}`);
  const dbCpu = await DatabaseCpu.open(db);
  try {
    const { users, listings, conversations, readers } = opts.sizes;
    log(
      `building the data set: ${users} users, ${listings} listings (3 images, 2 categories, 1 location each), ~${opts.sizes.favouritesPerUser} favourites per user, ${conversations} conversations; ` +
        `${readers} of the users readers, each with ${READER_FAVOURITES} favourites and ${READER_THREADS} conversations of ${THREAD_MESSAGES} messages`,
    );
    if (opts.reuse) log(`reusing the data set kept at ${db.location}`);
    const data = await buildDataset({
      url: db.url,
      sizes: opts.sizes,
      log,
      reuse: opts.reuse !== undefined,
      overrides: {
        apiKey: process.env.API_KEY || undefined,
        jwtSecret: process.env.JWT_SECRET || undefined,
        tokenMacKey: process.env.TOKEN_MAC_KEY || undefined,
      },
    });
    log(`data set built in ${data.buildSeconds.toFixed(1)} s: ${JSON.stringify(data.counts)}`);
    const { heavy } = data;
    if (heavy.chatUsers.length)
      log(
        `heavy users (${heavy.chatUsers.length} of each kind): ${heavy.chatConversations} conversations, ${heavy.favourites} favourites, a conversation of ${heavy.longMessages} messages`,
      );
    const t = performance.now();
    const tokens = signTokens(data);
    log(`signed ${tokens.length} tokens (one per user) in ${((performance.now() - t) / 1000).toFixed(1)} s`);

    if (rows.some(togglesFloor)) {
      floor = await writeFloorData(db.url, data);
      log(`floor: ${FLOOR_SCRIPT} on the same users and listings (${floor.file})`);
    }
    if (opts.mail) {
      mailSink = await startMailSink();
      log(`mail: on, to a local SMTP server that drops what it gets (${mailSink.env.SMTP_URL})`);
    }
    if (opts.pusher) {
      // On a WordPress site the site's own settings turn Pusher on; PUSHER_URL would only say where.
      if (db.dialect === 'mysql')
        throw new Error("--pusher runs on SQLite and PostgreSQL: on a WordPress site the site's rtcl_chat_settings turn Pusher on");
      pusherSink = await startPusherSink(db);
      log(
        `Pusher: on, to a local server that takes every batch and drops it (${pusherSink.env.PUSHER_URL!.replace(/:[^:@/]+@/, ':****@')})`,
      );
    }
    const ctx: RowContext = {
      opts,
      db,
      data,
      tokens,
      dbCpu,
      stamp,
      floor,
      profiles: [],
      mailEnv: mailSink?.env,
      pusherEnv: pusherSink?.env,
      pusherSink,
    };
    const results: Row[] = [];
    for (const name of rows) {
      log(
        name === 'streams'
          ? `${LABELS[name]}: ${opts.streams} streams, ${opts.messageRate} messages/s, ${opts.warmup} s warm-up, ${opts.duration} s measured, ${opts.instances} process(es) ...`
          : `${LABELS[name]}: ${opts.warmup} s warm-up, ${opts.duration} s measured, ${opts.connections} connections, ${opts.instances} process(es)${name === 'toggle-streams' ? `, ${opts.streams} streams` : ''} ...`,
      );
      const row = await runRow(name, ctx);
      results.push(row);
      log(
        `  ${Math.round(row.rps)} req/s, p50 ${row.p50Ms.toFixed(2)} ms, p99 ${row.p99Ms.toFixed(2)} ms, ${row.errors} errors, ${JSON.stringify(row.load.counters)}`,
      );
      for (const p of row.load.problems) log(`  ! ${p}`);
    }
    // The host's speed drifts (docs/benchmark.md): the ceiling is measured again after the Souk
    // rows, and each Souk row is set against the mean of the two measurements around it.
    if (results.some((r) => r.name === 'bare') && results.some((r) => r.name !== 'bare') && !opts.instructions) {
      log(`${LABELS.bare}, again after the Souk rows: ${opts.warmup} s warm-up, ${opts.duration} s measured ...`);
      const again = await runRow('bare', ctx);
      again.label = `${LABELS.bare}, again`;
      results.push(again);
      log(`  ${Math.round(again.rps)} req/s, p50 ${again.p50Ms.toFixed(2)} ms, p99 ${again.p99Ms.toFixed(2)} ms, ${again.errors} errors`);
    }
    const bareRps = results.filter((r) => r.name === 'bare').map((r) => r.rps);
    const ceiling = bareRps.length > 0 ? sum(bareRps) / bareRps.length : undefined;
    for (const r of results) if (ceiling !== undefined && r.name !== 'bare' && r.name !== 'pgbench') r.pctOfBare = (100 * r.rps) / ceiling;
    const pgbenchTps = results.find((r) => r.name === 'pgbench')?.rps;
    // The PostgreSQL floor's rows too, so that each Souk row's share shows beside its floor's.
    for (const r of results)
      if (pgbenchTps && (!isReferenceRow(r.name) || isPgFloorRow(r.name))) r.pctOfPgbench = (100 * r.rps) / pgbenchTps;
    const floorOf = (r: Row) =>
      results.find((f) => DATABASE_FLOOR_OF[r.name]?.includes(f.name)) ?? results.find((f) => f.name === FLOOR_OF[r.name]);
    const cpuMs = (row: Row) => row.cpuMsPerRequest.servers + (row.cpuMsPerRequest.database ?? 0);
    for (const r of results) {
      const floorRow = floorOf(r);
      if (floorRow) {
        r.pctOfFloor = (100 * r.rps) / floorRow.rps;
        r.cpuPctOfFloor = (100 * cpuMs(floorRow)) / cpuMs(r);
      }
      // The database's own duty floor when it ran (PostgreSQL's first), as for the floors above.
      const duty = DUTY_FLOOR_OF[r.name]?.map((name) => results.find((f) => f.name === name)).find((f) => f !== undefined);
      if (duty) {
        r.pctOfDutyFloor = (100 * r.rps) / duty.rps;
        r.cpuPctOfDutyFloor = (100 * cpuMs(duty)) / cpuMs(r);
      }
    }

    log('');
    log(`Souk bench, ${dialectLabel}, ${opts.connections} connections, ${opts.duration} s per row after ${opts.warmup} s warm-up`);
    log(formatTable(results));
    if (ceiling !== undefined && bareRps.length > 1) log(`% of bare: against the mean of the two bare rows, ${Math.round(ceiling)} req/s.`);
    if (results.some((r) => r.pctOfFloor !== null))
      log(
        "% of floor: against the floor row of the same operation in this run (a message sent: against the floor's new conversation); " +
          "below, the floor's CPU per request as a share of the row's, which a busy machine moves less.",
      );
    if (results.some((r) => r.pctOfDutyFloor !== undefined))
      log(
        "% of duty floor: against the floor row of the same operation that does Souk's duties too (its limits counted, its checks' reads, " +
          "its event log and outbox writes, its log line; docs/benchmark.md), PostgreSQL's when it ran.",
      );
    log(
      `CPU: % of one core used during the measured window by the server process(es), the database's backends serving them (PostgreSQL's processes, MariaDB's connection threads), the load generator, and all other processes (this machine has ${cpus().length} cores: ${cpus().length * 100} % in all).`,
    );
    const pgbenchShares = formatPgbenchShares(results, floorOf);
    if (pgbenchShares) log(pgbenchShares);
    log(formatCpuPerRequest(results));
    const heavySummary = formatHeavy(results);
    if (heavySummary) log(heavySummary);
    const streamsSummary = formatStreams(results);
    if (streamsSummary) log(streamsSummary);
    if (opts.instructions) {
      log(formatInstructions(results, floorOf));
      log("(Under valgrind: the table's requests/second, latencies, CPU and RSS are valgrind's, not comparable with a plain run.)");
    }
    if (opts.production) {
      const limited = results.filter((r) => (r.load.statusCounts['429'] ?? 0) > 0);
      log(
        limited.length
          ? `429 answers (a limit reached: raise it in bench/processes.ts PRODUCTION_SETTINGS): ${limited.map((r) => `${r.name} ${r.load.statusCounts['429']}`).join(', ')}`
          : 'No row was answered 429: every limit counted and none was reached.',
      );
    }
    const loaded = results.filter((r) => (r.cpu.others ?? 0) > 20);
    if (loaded.length) {
      log(
        `Note: other processes took CPU from the bench during ${loaded.map((r) => `${r.name} (${Math.round(r.cpu.others!)} %)`).join(', ')}: those rows are lower than on an idle machine.`,
      );
    }

    const profiles = [];
    for (const p of ctx.profiles) {
      if (!existsSync(p.file)) {
        log(`no profile at ${p.file}`);
        continue;
      }
      const summary = summarise(p.file, 15);
      profiles.push({ ...p, ...summary });
      log('');
      log(formatSummary(`profile of ${p.row} (instance ${p.instance}), ${p.file.slice(ROOT.length)}`, summary));
    }

    const file = writeResults(`${db.dialect}${opts.instances > 1 ? `-x${opts.instances}` : ''}${mode ? `-${mode}` : ''}-${stamp}`, {
      date: new Date().toISOString(),
      commit: gitCommit(),
      machine: { cores: cpus().length, cpu: cpus()[0]?.model, memoryGb: Math.round(totalmem() / 2 ** 30), node: process.version },
      database: {
        dialect: db.dialect,
        instances: opts.instances,
        location: db.dialect === 'sqlite' ? 'temporary SQLite file' : redact(db.location),
      },
      options: {
        quick: opts.quick,
        smoke: opts.smoke,
        mail: opts.mail,
        pusher: opts.pusher,
        duration: opts.duration,
        warmup: opts.warmup,
        connections: opts.connections,
        streams: opts.streams,
        messageRate: opts.messageRate,
        profile: opts.profile,
        instructions: opts.instructions,
      },
      dataset: { ...data.counts, buildSeconds: data.buildSeconds },
      rows: results,
      profiles,
      wallSeconds: (performance.now() - wallStart) / 1000,
    });
    log(`\nresults: ${file.slice(ROOT.length)}`);
    log(`wall time: ${((performance.now() - wallStart) / 1000).toFixed(1)} s`);
    const failed = results.filter((r) => r.errors > 0 || r.load.requests === 0);
    if (failed.length) {
      process.exitCode = 1;
      log(`FAILED: ${failed.map((r) => `${r.name} (${r.errors} errors of ${r.load.requests})`).join(', ')}`);
    }
  } finally {
    if (pusherSink) log(`Pusher: ${pusherSink.events()} events taken`);
    await mailSink?.close();
    await pusherSink?.close();
    await dbCpu.close();
    await cleanup();
  }
}

main().catch((err) => {
  console.error(err instanceof Error ? (err.stack ?? err.message) : err);
  process.exitCode = 1;
});
