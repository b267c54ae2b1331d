/**
 * The `souk` CLI for a test, each test on a scratch database: `souk` runs a command line in the
 * test's own process, through the CLI's one entry (`runCommandLine`, the same parsing, commands and
 * exit statuses), with an environment and standard streams of its own; `soukProcess` runs the real
 * `bin/souk` as a child process, for what only a process shows (its exit, its pipes, its umask).
 * bin/souk loads dist/: `npm test` builds it first; when running a file alone, `npm run build` before.
 */
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SOUK_READY, startProcess, type ServerProcess } from '../../tools/processes.js';
import { runCommandLine } from '../../src/cli/main.js';
import { SITE_URL } from './fixtures.js';
import { outputOf, type CliRun } from './processes.js';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const BIN = join(ROOT, 'bin', 'souk');

/** A scratch folder with the database path every command of one test uses. */
export function scratch(t: TestContext): { dir: string; db: string } {
  const dir = mkdtempSync(join(tmpdir(), 'souk-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, db: join(dir, 'souk.db') };
}

/** The environment of a command: only what Souk reads, so the caller's shell cannot leak in. */
export function envFor(db: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, DATABASE_URL: `sqlite:${db}`, SITE_URL, LOG_LEVEL: 'warn', ...extra };
}

export interface CliOptions {
  input?: string;
  env?: Record<string, string>;
}

/** Runs a command line in this process on the scratch database `db`. */
export function souk(db: string, args: string[], opts: CliOptions = {}): Promise<CliRun> {
  return commandLine(args, envFor(db, opts.env), opts.input);
}

/** Runs a command line in this process with exactly `env`: what it prints is kept, its input is `input` (none by default). */
export async function commandLine(args: string[], env: NodeJS.ProcessEnv, input?: string): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const code = await runCommandLine(args, {
    env,
    stdin: input === undefined ? [] : [input],
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}

/** Runs `souk ARGS...` in this process with only `env` (and PATH) as its environment. */
export function runCli(args: string[], env: Record<string, string>): Promise<CliRun> {
  return commandLine(args, { PATH: process.env.PATH, LOG_LEVEL: 'warn', ...env });
}

/** Runs `bin/souk` as a process of its own. */
export function soukProcess(db: string, args: string[], opts: CliOptions = {}): Promise<CliRun> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: envFor(db, opts.env) });
  const run = outputOf(child);
  // A command that exits without reading its input must not fail the test with EPIPE.
  child.stdin.on('error', () => {});
  if (opts.input === undefined) child.stdin.end();
  else child.stdin.end(opts.input);
  return run;
}

/** Runs a command that must succeed and returns its standard output. */
export async function ok(db: string, args: string[], opts?: CliOptions): Promise<string> {
  const run = await souk(db, args, opts);
  assert.equal(run.code, 0, `souk ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

export function decode(segment: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

/** Checks an HS256 token's signature against the secret and returns its claims. */
export function verified(token: string, secret: string): Record<string, unknown> {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  assert.deepEqual(decode(header), { alg: 'HS256', typ: 'JWT' });
  assert.equal(createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url'), signature);
  return decode(payload);
}

/** Starts `souk serve` on a free port (tools/processes.ts) with only the variables Souk reads; stopped after the test. */
export async function startServer(
  t: TestContext,
  db: string,
  env: Record<string, string> = {},
): Promise<{ server: ServerProcess; base: string }> {
  const server = await startProcess('souk serve', {
    args: [BIN, 'serve'],
    env: envFor(db, env) as Record<string, string>,
    ready: SOUK_READY,
    cwd: ROOT,
  });
  t.after(() => server.stop());
  const base = /serving the interface at (\S+)/.exec(server.output())![1]!;
  assert.equal(base, `${server.url}/wp-json/rtcl/v1`);
  return { server, base };
}
