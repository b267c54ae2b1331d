/** Real Souk server processes (`bin/souk serve`) for tests that need more than one instance. */
import { after } from 'node:test';
import { SOUK_READY, startProcess, type ServerProcess as Process } from '../../tools/processes.js';

export { freePort, SOUK_BIN } from '../../tools/processes.js';
import { SOUK_BIN } from '../../tools/processes.js';

export interface ServerProcess extends Process {
  /** http://127.0.0.1:PORT */
  base: string;
}

/** Starts `souk serve` and waits for its "serving" line; killed after the test. */
export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startProcess('souk serve', { args: [SOUK_BIN, 'serve'], env: { LOG_LEVEL: 'warn', ...env }, ready: SOUK_READY });
  after(() => server.stop('SIGKILL'));
  return { ...server, base: server.url };
}
