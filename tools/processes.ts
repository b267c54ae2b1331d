/**
 * Child processes for the tests, the benchmark and the soak: a free loopback port, and a server
 * process started, awaited until it says it is ready, and stopped. Also what /proc says about a
 * process (CPU time, resident memory). Outside src/ on purpose: none of this ships.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SOUK_BIN = `${ROOT}bin/souk`;
/** Every server listens here (in the HOST variable, which valgrind also reads: bench/callgrind.ts). */
export const SERVER_HOST = '127.0.0.1';

const live = new Set<ChildProcess>();
// Never leave a server behind, whatever way the parent ends.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, SERVER_HOST);
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

export interface ServerProcess {
  name: string;
  pid: number;
  child: ChildProcess;
  /** http://127.0.0.1:PORT */
  url: string;
  output(): string;
  /** Sends the signal (SIGTERM by default), then SIGKILL after 10 s; resolves with the exit code (null when a signal ended it). */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface StartOptions {
  /** Node.js arguments (flags, then the script and its arguments). */
  args: string[];
  env?: Record<string, string>;
  /** Ready when the output matches this; 'port' when the process prints nothing and is ready once it accepts connections. */
  ready: RegExp | 'port';
  /** A command to run node under (valgrind: bench/callgrind.ts). */
  prefix?: string[];
  cwd?: string;
  /** How long it may take to get ready (default 30 s). */
  startupMs?: number;
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, SERVER_HOST);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** Characters of a process's output kept (at least; up to four times as many). */
const OUTPUT_KEPT = 1 << 20;

/** Starts `node ARGS` with PORT and HOST set to a free loopback port, and waits until it is ready. */
export async function startProcess(name: string, opts: StartOptions): Promise<ServerProcess> {
  const port = await freePort();
  const [command, ...rest] = [...(opts.prefix ?? []), process.execPath, ...opts.args] as [string, ...string[]];
  const child = spawn(command, rest, {
    env: { ...process.env, ...opts.env, PORT: String(port), HOST: SERVER_HOST },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(opts.cwd ? { cwd: opts.cwd } : {}),
  });
  live.add(child);
  let out = '';
  // A server logging a line per request prints hundreds of MB in a bench row: its tail is enough.
  const take = (d: Buffer) => {
    out += d;
    if (out.length > OUTPUT_KEPT * 4) out = out.slice(-OUTPUT_KEPT);
  };
  child.stdout!.on('data', take);
  child.stderr!.on('data', take);
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  const isReady = async () => (opts.ready === 'port' ? accepts(port) : opts.ready.test(out));
  const deadline = Date.now() + (opts.startupMs ?? 30_000);
  while (!(await isReady())) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    name,
    pid: child.pid!,
    child,
    url: `http://${SERVER_HOST}:${port}`,
    output: () => out,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

/** `souk serve` is ready when it prints this. */
export const SOUK_READY = /serving the interface at/;

const CLOCK_TICKS = 100; // USER_HZ; Linux reports /proc times in 1/100 s

/** User + system CPU seconds a process has used, or undefined when it is gone. */
export function cpuSeconds(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After "pid (comm) ": state is field 3, utime 14 and stime 15 (1-based) -> indexes 11 and 12 here.
    return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}

function statusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** Peak resident set size (VmHWM) in bytes. */
export function peakRss(pid: number): number | undefined {
  const kb = statusKb(pid, 'VmHWM');
  return kb === undefined ? undefined : kb * 1024;
}

/** Resident set size now (VmRSS) in MiB. */
export function rssMb(pid: number): number | undefined {
  const kb = statusKb(pid, 'VmRSS');
  return kb === undefined ? undefined : kb / 1024;
}

/** CPU seconds the whole machine has spent busy (all cores; idle and I/O wait excluded). */
export function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0]!;
    // cpu user nice system idle iowait irq softirq steal ...
    const [user, nice, system, , , irq, softirq, steal] = line.trim().split(/\s+/).slice(1).map(Number);
    return ((user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0)) / CLOCK_TICKS;
  } catch {
    return undefined;
  }
}
