/** Real Souk server processes (`bin/souk serve`) for tests that need more than one instance. */
import { after } from 'node:test';
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { SOUK_READY, startProcess, type ServerProcess as Process } from '../../tools/processes.js';

export { freePort, SOUK_BIN } from '../../tools/processes.js';
import { SOUK_BIN } from '../../tools/processes.js';

export interface ServerProcess extends Process {
  /** http://127.0.0.1:PORT */
  base: string;
}

/** Starts `souk serve` and waits for its "serving" line; killed after the test. */
/** Tests send many messages at once; the abuse limits have tests of their own (test/http/abuse-limits.test.ts). */
export const NO_ABUSE_LIMITS = {
  MESSAGES_PER_MINUTE: '0',
  NEW_CONVERSATIONS_PER_HOUR: '0',
  REPORTS_PER_HOUR: '0',
  BLOCK_CHANGES_PER_HOUR: '0',
};

export async function startServerProcess(env: Record<string, string>): Promise<ServerProcess> {
  const server = await startProcess('souk serve', {
    args: [SOUK_BIN, 'serve'],
    env: { LOG_LEVEL: 'warn', ...NO_ABUSE_LIMITS, ...env },
    ready: SOUK_READY,
  });
  after(() => server.stop('SIGKILL'));
  return { ...server, base: server.url };
}

/** How a command ended, and what it printed. */
export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Resolves once the child has closed, with its exit code and its whole output. */
export function outputOf(child: ChildProcessWithoutNullStreams): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}
