/** The bench's output: one table on stdout and the same figures as JSON under bench/results/. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LoadResult } from './load.js';
import type { RowName } from './scenarios.js';

export const RESULTS_DIR = fileURLToPath(new URL('./results/', import.meta.url));

export const LABELS: Record<RowName, string> = {
  bare: 'bare node:http ceiling',
  'floor-toggle': 'floor: toggle favourite',
  'floor-start-new': 'floor: start conversation: new',
  toggle: 'toggle favourite (1/2 add, 1/2 remove)',
  'start-new': 'start conversation: new',
  'start-existing': 'start conversation: existing (append)',
  'chat-list': 'chat list (GET my/chat)',
  'chat-poll': 'conversation read (GET my/chat/conversation)',
  login: 'sign-in (POST login, bcrypt cost 10)',
  'toggle-under-logins': 'toggle favourite during a burst of sign-ins',
};

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
  /** Souk's toggle and start-new: throughput as a percentage of the floor's same operation in the same run. */
  pctOfFloor: number | null;
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
}

const fmt = (n: number, digits = 0) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

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
    `${fmt(r.cpu.servers)}/${r.cpu.database === null ? '-' : fmt(r.cpu.database)}/${fmt(r.cpu.generator)}/${r.cpu.others === null ? '-' : fmt(r.cpu.others)}`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  const rule = `|${widths.map((w, i) => (i === 0 ? '-'.repeat(w + 2) : `${'-'.repeat(w + 1)}:`)).join('|')}|`;
  return [line(header), rule, ...body.map(line)].join('\n');
}

export function formatCpuPerRequest(rows: Row[]): string {
  const lines = ['CPU milliseconds per request (server / database / load generator):'];
  for (const r of rows) {
    const c = r.cpuMsPerRequest;
    lines.push(`  ${r.label}: ${c.servers.toFixed(3)} / ${c.database === null ? '-' : c.database.toFixed(3)} / ${c.generator.toFixed(3)}`);
  }
  return lines.join('\n');
}

export function formatInstructions(rows: Row[]): string {
  const bare = rows.find((r) => r.name === 'bare')?.instructionsPerRequest ?? null;
  const lines = ['Instructions per request, counted by callgrind in the measured window: main thread (the event loop), then all threads:'];
  for (const r of rows) {
    const n = r.instructionsPerRequest;
    if (n === null) continue;
    const times = bare !== null && r.name !== 'bare' ? ` (${(n.main / bare.main).toFixed(2)} x bare)` : '';
    lines.push(`  ${r.label}: ${fmt(n.main)}${times}; all threads ${fmt(n.all)}`);
  }
  return lines.join('\n');
}

export function writeResults(name: string, report: unknown): string {
  mkdirSync(RESULTS_DIR, { recursive: true });
  const path = `${RESULTS_DIR}${name}.json`;
  writeFileSync(path, `${JSON.stringify(report, null, 2)}\n`);
  return path;
}
