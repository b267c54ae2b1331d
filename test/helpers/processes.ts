/** Real Souk server processes (`bin/souk serve`) for tests that need more than one instance. */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { after } from 'node:test';
import { fileURLToPath } from 'node:url';

export const SOUK_BIN = fileURLToPath(new URL('../../bin/souk', import.meta.url));

export async function freePort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const port = (server.address() as { port: number }).port;
  await new Promise((r) => server.close(r));
  return port;
}

export interface ServerProcess {
  child: ChildProcess;
  base: string;
  output: () => string;
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `souk serve` and waits for its "serving" line; stopped after the test. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const port = await freePort();
  const child = spawn(process.execPath, [SOUK_BIN, 'serve'], {
    env: { ...process.env, LOG_LEVEL: 'warn', ...env, PORT: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d) => (out += d));
  child.stderr!.on('data', (d) => (out += d));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const stop = async (signal: NodeJS.Signals = 'SIGTERM') => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  after(() => stop('SIGKILL'));
  for (let i = 0; i < 300 && !out.includes('serving the interface at'); i++) {
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  if (!out.includes('serving the interface at')) throw new Error(`souk serve did not start:\n${out}`);
  return { child, base: `http://127.0.0.1:${port}`, output: () => out, stop };
}
