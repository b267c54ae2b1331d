/**
 * Instruction counts (`npm run bench -- --instructions`). On a shared machine the time a request
 * takes moves with the neighbours' load; the instructions a server executes for it barely do. So
 * each server runs under valgrind's callgrind with instrumentation off (start-up and warm-up at
 * valgrind's plain speed), then counts only the measured window, thread by thread: the main
 * thread runs the event loop and sets the throughput; V8's compiler and GC helpers and libuv's
 * pool run beside it.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { SERVER_HOST } from './processes.js';

export interface Instructions {
  /** The main thread's: the event loop. */
  main: number;
  /** Every thread's. */
  all: number;
}

/**
 * Where valgrind and callgrind_control meet: valgrind puts its command pipes in the program's
 * TMPDIR unless told, and the floors run with a TMPDIR of their own.
 */
const VGDB_PREFIX = `--vgdb-prefix=${join(tmpdir(), 'vgdb-pipe')}`;

/** The command prefix that starts a program under callgrind, writing its counts to outFile.N-TT. */
export function callgrindPrefix(outFile: string): string[] {
  mkdirSync(dirname(outFile), { recursive: true });
  return ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--separate-threads=yes', VGDB_PREFIX, `--callgrind-out-file=${outFile}`];
}

/**
 * Node.js flags for a counted server. V8 compiles hot functions and collects garbage on helper
 * threads; under valgrind, which runs one thread at a time, when optimised code arrives then
 * varies from run to run, and with it the main thread's count (by half, seen here). On the main
 * thread alone, that work comes at the same points in every run and is counted with the rest.
 */
export const COUNTED_NODE_FLAGS = ['--single-threaded'];

function control(pid: number, ...args: string[]): void {
  // valgrind names its command pipe after the HOST variable, which the servers get set to their address.
  const r = spawnSync('callgrind_control', [VGDB_PREFIX, ...args, String(pid)], {
    encoding: 'utf8',
    env: { ...process.env, HOST: SERVER_HOST },
  });
  if (r.status !== 0 || !r.stdout.includes('OK') || r.stderr.includes('error')) {
    throw new Error(`callgrind_control ${args.join(' ')} ${pid} failed: ${r.stderr || r.stdout}`);
  }
}

/** Starts counting from zero. */
export function startCounting(pid: number): void {
  control(pid, '--instr=on');
  control(pid, '--zero');
}

/** Instructions executed since startCounting, read from the per-thread dump it writes now. */
export function stopCounting(pid: number, outFile: string): Instructions {
  const started = Date.now();
  control(pid, '--dump');
  control(pid, '--instr=off');
  const dir = dirname(outFile);
  const files = readdirSync(dir)
    .filter((f) => f.startsWith(`${basename(outFile)}.`))
    .map((f) => join(dir, f))
    .filter((f) => statSync(f).mtimeMs >= started - 1000);
  if (files.length === 0) throw new Error(`callgrind wrote no dump next to ${outFile}`);
  // One dump: the newest dump number, one file per thread (…out.N-TT, thread 01 the main one).
  const dumpNumber = (f: string) => Number(/\.(\d+)-\d+$/.exec(f)?.[1] ?? 0);
  const last = Math.max(...files.map(dumpNumber));
  const counts = { main: 0, all: 0 };
  for (const file of files.filter((f) => dumpNumber(f) === last)) {
    const text = readFileSync(file, 'utf8');
    const summary = Number(/^summary:\s+(\d+)/m.exec(text)?.[1] ?? NaN);
    if (!Number.isFinite(summary)) throw new Error(`no summary line in ${file}`);
    counts.all += summary;
    if (/^thread:\s+1$/m.test(text)) counts.main += summary;
  }
  return counts;
}
