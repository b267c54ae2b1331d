/** The bench's output: one table on stdout and the same figures as JSON under bench/results/. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './load.js';
import type { RowName } from './scenarios.js';

export const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

export const LABELS: Record<RowName, string> = {
  bare: 'bare node:http ceiling',
  pgbench: 'PostgreSQL ceiling (pgbench -N, tx/s)',
  'floor-toggle': 'floor: toggle favourite',
  'floor-start-new': 'floor: start conversation: new',
  'floor-chat-poll': 'floor: conversation read',
  'floor-chat-list': 'floor: chat list',
  'floor-favourites': 'floor: favourites list',
  'floor-mysql-toggle': 'MySQL floor: toggle favourite',
  'floor-mysql-start-new': 'MySQL floor: start conversation: new',
  'floor-mysql-chat-poll': 'MySQL floor: conversation read',
  'floor-pg-toggle': 'PostgreSQL floor: toggle favourite',
  'floor-pg-start-new': 'PostgreSQL floor: start conversation: new',
  'floor-pg-chat-poll': 'PostgreSQL floor: conversation read',
  'floor-duties-toggle': "duty floor: toggle favourite, with Souk's duties",
  'floor-duties-start-new': "duty floor: start conversation: new, with Souk's duties",
  'floor-pg-duties-toggle': "PostgreSQL duty floor: toggle favourite, with Souk's duties",
  'floor-pg-duties-start-new': "PostgreSQL duty floor: start conversation: new, with Souk's duties",
  toggle: 'toggle favourite (1/2 add, 1/2 remove)',
  'start-new': 'start conversation: new',
  'start-existing': 'start conversation: existing (append)',
  'message-send': 'message send (POST my/chat/message)',
  offer: 'offer (POST my/chat/offer)',
  'offer-accept': 'offer accepted (POST my/chat/offer/respond)',
  'message-photo': 'message with a 1 MB photo (upload form)',
  'chat-poll': 'conversation read (GET my/chat/conversation, 50 of 60)',
  'chat-list': 'chat list (GET my/chat, 20 of 25)',
  favourites: 'favourites list (GET my/favourites, 20 of 30)',
  login: 'sign-in (POST login, bcrypt cost 10)',
  'server-upsert-user': 'server API: user upsert (PUT /souk/v1/users/{id})',
  'server-upsert-listing': 'server API: listing upsert (PUT /souk/v1/listings/{id})',
  'toggle-under-logins': 'toggle favourite during a burst of sign-ins',
  'toggle-streams': 'toggle favourite with the event streams open',
  streams: 'event streams: messages (POST my/chat/message)',
  'chat-list-heavy': 'chat list of a reader with 1,000 conversations (20 of 1,000)',
  'favourites-heavy': 'favourites list of a reader with 5,000 (20 of 5,000)',
  'chat-poll-long': 'conversation read of 100,000 messages (50 of 100,000)',
  'console-reports': 'console: the reports queue (GET /console/reports), 4 connections',
  'console-user': "console: a user's page (GET /console/users/{id}), 4 connections",
  'console-conversation': 'console: a conversation read with a reason (POST /console/conversations/{id}/read), 4 connections',
  'toggle-under-console': 'toggle favourite while a moderator pages through the reports',
};

/** What the stream rows measured besides the table's columns (bench/streams.ts). */
export interface StreamFigures {
  /** Streams asked for, opened, failed to open, closed by the server before the end. */
  streams: number;
  opened: number;
  failed: number;
  dropped: number;
  openSeconds: number;
  /** The server's RSS (VmRSS) once started and idle, then with the streams open and idle. */
  rssBeforeMb: number;
  rssOpenMb: number;
  /** Heartbeat rounds seen while the streams were open: streams reached, ms from the first to the last. */
  heartbeats: { streams: number; spreadMs: number }[];
  /** The delivery part (streams row). */
  delivery?: {
    rate: number;
    achievedRate: number;
    /** Messages answered (warm-up included), delivered exactly once to the recipient's stream, never, twice or more, to another stream. */
    answered: number;
    deliveredOnce: number;
    missing: number;
    duplicates: number;
    misdelivered: number;
    unknown: number;
    failedSends: number;
    /** Event arrival minus reply arrival, ms (negative: the event came first), over the measured window's messages. */
    p50Ms: number;
    p99Ms: number;
    maxMs: number;
    minMs: number;
    maxInFlight: number;
  };
}

export interface Row {
  name: RowName;
  label: string;
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  errors: number;
  /** Sum over the row's server processes of each one's peak RSS (VmHWM). */
  peakRssMb: number;
  /** Souk rows: throughput as a percentage of the bare row's. */
  pctOfBare: number | null;
  /** Souk's and the PostgreSQL floor's rows, when the pgbench row ran: throughput as a percentage of its transactions a second. */
  pctOfPgbench?: number | null;
  /** Souk's rows that have a floor row (scenarios.ts FLOOR_OF): throughput as a percentage of it in the same run. */
  pctOfFloor: number | null;
  /**
   * The same rows: the floor's CPU per request (server and database) as a percentage of this row's.
   * The same comparison as pctOfFloor, and less moved by other work on the machine.
   */
  cpuPctOfFloor: number | null;
  /** The same against the duty floor (scenarios.ts DUTY_FLOOR_OF), when it ran. */
  pctOfDutyFloor?: number;
  cpuPctOfDutyFloor?: number;
  /** CPU used during the measured window, in % of one core; others = every other process on the machine. */
  cpu: { servers: number; database: number | null; generator: number; others: number | null };
  /** The same per request, in CPU milliseconds: what sets the throughput a number of cores can reach. */
  cpuMsPerRequest: { servers: number; database: number | null; generator: number };
  /** With --instructions: what the server process(es) executed per request, main thread and all (callgrind.ts). */
  instructionsPerRequest: { main: number; all: number } | null;
  /** Load average (1 min) of the machine when the row started and ended: others' work shows here. */
  loadAverage: [number, number];
  load: LoadResult;
  peakRssPerProcessMb: number[];
  streams?: StreamFigures;
}

/** A figure for the table; '-' for one the row has not (pgbench reports no percentiles). */
const fmt = (n: number, digits = 0) =>
  Number.isFinite(n) ? n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits }) : '-';

export function formatTable(rows: Row[]): string {
  const header = [
    'scenario',
    'req/s',
    'p50 ms',
    'p99 ms',
    'max ms',
    'errors',
    'peak RSS MB',
    '% of bare',
    '% of floor',
    '% of duty floor',
    'CPU srv/db/gen/other %',
  ];
  const body = rows.map((r) => [
    r.label,
    fmt(r.rps),
    fmt(r.p50Ms, 2),
    fmt(r.p99Ms, 2),
    fmt(r.maxMs, 1),
    fmt(r.errors),
    fmt(r.peakRssMb, 1),
    r.pctOfBare === null ? '-' : `${fmt(r.pctOfBare, 1)} %`,
    r.pctOfFloor === null ? '-' : `${fmt(r.pctOfFloor, 1)} %`,
    r.pctOfDutyFloor === undefined ? '-' : `${fmt(r.pctOfDutyFloor, 1)} %`,
    `${fmt(r.cpu.servers)}/${r.cpu.database === null ? '-' : fmt(r.cpu.database)}/${fmt(r.cpu.generator)}/${r.cpu.others === null ? '-' : fmt(r.cpu.others)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

/**
 * Each Souk row and each PostgreSQL floor row as a share of PostgreSQL's own write ceiling in the
 * same run; `floorOf`: a Souk row's floor row, whose share is written beside its own.
 */
export function formatPgbenchShares(rows: Row[], floorOf: (row: Row) => Row | undefined = () => undefined): string | undefined {
  const reference = rows.find((r) => r.name === 'pgbench');
  const shares = rows.filter((r) => typeof r.pctOfPgbench === 'number');
  if (!reference || shares.length === 0) return undefined;
  const lines = [
    `% of pgbench -N: each Souk row, and each PostgreSQL floor row, against PostgreSQL's ${fmt(reference.rps)} transactions a second in this run (bench/pgbench.ts):`,
  ];
  for (const r of shares) {
    const floor = floorOf(r)?.pctOfPgbench;
    const beside = typeof floor === 'number' ? ` (its floor: ${fmt(floor, 1)} %)` : '';
    lines.push(`  ${r.label}: ${fmt(r.pctOfPgbench!, 1)} %${beside}`);
  }
  return lines.join('\n');
}

export function formatCpuPerRequest(rows: Row[]): string {
  const lines = ['CPU milliseconds per request (server / database / load generator):'];
  for (const r of rows) {
    const c = r.cpuMsPerRequest;
    const shares = [
      r.cpuPctOfFloor === null ? undefined : `the floor's: ${fmt(r.cpuPctOfFloor, 1)} %`,
      r.cpuPctOfDutyFloor === undefined ? undefined : `the duty floor's: ${fmt(r.cpuPctOfDutyFloor, 1)} %`,
    ].filter((share) => share !== undefined);
    const floor = shares.length === 0 ? '' : ` (${shares.join('; ')} of this)`;
    lines.push(
      `  ${r.label}: ${c.servers.toFixed(3)} / ${c.database === null ? '-' : c.database.toFixed(3)} / ${c.generator.toFixed(3)}${floor}`,
    );
  }
  return lines.join('\n');
}

/** `floorOf`: the floor row of a Souk row in the same run, if any. */
export function formatInstructions(rows: Row[], floorOf: (row: Row) => Row | undefined): string {
  const bare = rows.find((r) => r.name === 'bare')?.instructionsPerRequest ?? null;
  const lines = ['Instructions per request, counted by callgrind in the measured window: main thread (the event loop), then all threads:'];
  for (const r of rows) {
    const n = r.instructionsPerRequest;
    if (n === null) continue;
    const times = bare !== null && r.name !== 'bare' ? ` (${(n.main / bare.main).toFixed(2)} x bare)` : '';
    const floor = floorOf(r)?.instructionsPerRequest;
    const share = floor ? `; the floor's: ${fmt((100 * floor.main) / n.main, 1)} % of this` : '';
    lines.push(`  ${r.label}: ${fmt(n.main)}${times}; all threads ${fmt(n.all)}${share}`);
  }
  return lines.join('\n');
}

export function writeResults(name: string, report: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = `${RESULTS_DIR}${name}.json`;
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}

/** The stream rows' own figures: memory with the streams open, delivery, and the toggle with and without them. */
export function formatStreams(rows: Row[]): string | undefined {
  const held = rows.filter((r) => r.streams);
  if (held.length === 0) return undefined;
  const lines = ['Event streams (GET my/events), each a connection from the bench process, on one Souk process:'];
  for (const r of held) {
    const s = r.streams!;
    const per = s.opened > 0 ? ((s.rssOpenMb - s.rssBeforeMb) * 1024) / s.opened : 0;
    lines.push(
      `  ${r.name}: ${fmt(s.opened)} of ${fmt(s.streams)} opened in ${s.openSeconds.toFixed(1)} s (${s.failed} failed, ${s.dropped} closed by the server); ` +
        `RSS ${fmt(s.rssBeforeMb, 1)} MB idle -> ${fmt(s.rssOpenMb, 1)} MB with them open (${fmt(per, 1)} KB a stream); peak ${fmt(r.peakRssMb, 1)} MB`,
    );
    const full = s.heartbeats.filter((h) => h.streams >= s.opened * 0.9);
    if (full.length > 0)
      lines.push(
        `  heartbeat rounds (one write to every stream): ${full.length}, from the first stream's to the last's ${full.map((h) => fmt(h.spreadMs, 0)).join(', ')} ms`,
      );
    const d = s.delivery;
    if (d) {
      lines.push(
        `  delivery: ${fmt(d.achievedRate)} messages/s (asked ${fmt(d.rate)}); event arrival - reply arrival p50 ${fmt(d.p50Ms, 2)} ms, ` +
          `p99 ${fmt(d.p99Ms, 2)} ms, max ${fmt(d.maxMs, 1)} ms, min ${fmt(d.minMs, 1)} ms; reply p99 ${fmt(r.p99Ms, 2)} ms; at most ${d.maxInFlight} in flight`,
      );
      lines.push(
        `  of ${fmt(d.answered)} messages answered (warm-up included): ${fmt(d.deliveredOnce)} delivered exactly once to the recipient, ` +
          `${d.missing} never, ${d.duplicates} more than once, ${d.misdelivered} to another user, ${d.unknown} unknown events, ${d.failedSends} failed sends`,
      );
    }
  }
  // With --only toggle,toggle-streams,toggle,toggle-streams (turns, for a busy machine): the means.
  const mean = (name: RowName, of: (r: Row) => number) => {
    const rs = rows.filter((r) => r.name === name);
    return rs.length === 0 ? undefined : { value: rs.reduce((n, r) => n + of(r), 0) / rs.length, rows: rs.length };
  };
  const without = mean('toggle', (r) => r.rps);
  const withStreams = mean('toggle-streams', (r) => r.rps);
  if (without && withStreams && without.value > 0) {
    const cpuWithout = mean('toggle', (r) => r.cpuMsPerRequest.servers)!.value;
    const cpuWith = mean('toggle-streams', (r) => r.cpuMsPerRequest.servers)!.value;
    const rowsNote = without.rows + withStreams.rows > 2 ? ` (means of ${withStreams.rows} and ${without.rows} rows)` : '';
    lines.push(
      `  toggle with ${fmt(held.find((r) => r.name === 'toggle-streams')!.streams!.opened)} idle streams: ${fmt(withStreams.value)} req/s, ` +
        `${fmt((100 * withStreams.value) / without.value, 1)} % of the toggle's ${fmt(without.value)} without${rowsNote}; ` +
        `server CPU ${cpuWith.toFixed(3)} vs ${cpuWithout.toFixed(3)} ms a request (${fmt((100 * cpuWith) / cpuWithout, 1)} %)`,
    );
  }
  return lines.join('\n');
}

/** Each heavy row's typical row: issue 52 asks the heavy user's first page within 2× its cost. */
const TYPICAL_OF: Partial<Record<RowName, RowName>> = {
  'chat-list-heavy': 'chat-list',
  'favourites-heavy': 'favourites',
  'chat-poll-long': 'chat-poll',
};

/** The heavy rows against their typical rows of the same run: server (and database) CPU per request, and throughput. */
export function formatHeavy(rows: Row[]): string | undefined {
  const lines: string[] = [];
  for (const heavy of rows) {
    const typical = rows.find((r) => r.name === TYPICAL_OF[heavy.name]);
    if (!typical) continue;
    const cpu = (r: Row) => r.cpuMsPerRequest.servers + (r.cpuMsPerRequest.database ?? 0);
    lines.push(
      `  ${heavy.name}: ${(cpu(heavy) / cpu(typical)).toFixed(2)}× the CPU per request of ${typical.name} (${cpu(heavy).toFixed(3)} against ${cpu(typical).toFixed(3)} ms), ${((100 * heavy.rps) / typical.rps).toFixed(0)} % of its requests a second`,
    );
  }
  return lines.length ? `The heaviest users against a typical one (issue 52: within 2×):\n${lines.join('\n')}` : undefined;
}
