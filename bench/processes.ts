/**
 * The servers under test, each a separate process (so the load generator never shares their
 * event loop): Souk as `node bin/souk serve`, and the bare node:http server. Also what /proc
 * says about a process: CPU time and peak RSS (VmHWM).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { npmStartFlags } from '../scripts/npm-start-flags.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
export const SOUK_BIN = `${ROOT}bin/souk`;
export const BARE_SERVER = `${ROOT}bench/bare-server.mjs`;
export const PROFILE_DIR = `${ROOT}bench/profiles`;

/** Every server listens here (in the HOST variable, which valgrind also reads: callgrind.ts). */
export const SERVER_HOST = '127.0.0.1';

const live = new Set<ChildProcess>();
// Never leave a server behind, whatever way the bench ends.
process.on('exit', () => {
  for (const child of live) child.kill('SIGKILL');
});

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

export interface ServerProcess {
  name: string;
  pid: number;
  url: string;
  output(): string;
  /** SIGTERM, then SIGKILL after 10 s; resolves with the exit code. */
  stop(): Promise<number | null>;
}

async function start(name: string, args: string[], env: Record<string, string>, ready: RegExp, prefix: string[] = []): Promise<ServerProcess> {
  const port = await freePort();
  const [command, ...rest] = [...prefix, process.execPath, ...args] as [string, ...string[]];
  const child = spawn(command, rest, {
    env: { ...process.env, ...env, PORT: String(port), HOST: SERVER_HOST },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) =>
    child.once('exit', (code) => {
      live.delete(child);
      resolve(code);
    }),
  );
  // Under valgrind, loading the modules alone takes a minute or more.
  const deadline = Date.now() + (prefix.length > 0 ? 600_000 : 30_000);
  while (!ready.test(out)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${name} did not start:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 25));
  }
  return {
    name,
    pid: child.pid!,
    url: `http://${SERVER_HOST}:${port}`,
    output: () => out,
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      const code = await exited;
      clearTimeout(timer);
      return code;
    },
  };
}

export interface SoukProcessOptions {
  databaseUrl: string;
  /** Write a V8 CPU profile named NAME.cpuprofile into bench/profiles when the process exits. */
  profileName?: string;
  /** A command to run the server under, and Node.js flags for it (callgrind.ts). */
  prefix?: string[];
  nodeFlags?: string[];
}

export function startSouk(name: string, opts: SoukProcessOptions): Promise<ServerProcess> {
  const profile = opts.profileName ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${opts.profileName}.cpuprofile`] : [];
  return start(
    name,
    [...npmStartFlags(), ...(opts.nodeFlags ?? []), ...profile, SOUK_BIN, 'serve'],
    { DATABASE_URL: opts.databaseUrl, LOG_LEVEL: 'warn', SITE_URL: 'https://souk.example' },
    /serving the interface at/,
    opts.prefix,
  );
}

export function startBare(name: string, prefix?: string[], nodeFlags: string[] = []): Promise<ServerProcess> {
  return start(name, [...nodeFlags, BARE_SERVER], {}, /bare server listening/, prefix);
}

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

/** Peak resident set size (VmHWM) in bytes. */
export function peakRss(pid: number): number | undefined {
  try {
    const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
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
