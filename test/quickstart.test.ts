/**
 * The README's quick start, as a new user runs it: `npm start` in a checkout with no
 * settings (SQLite under ./data/), then `./bin/souk demo` and every command it prints, pasted into bash.
 * The checkout is a temp folder holding this build, so the test leaves ./data untouched.
 */
import { after, it } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { checkExchange, demoCommands, runDemoCommands } from './helpers/demo-exchange.js';
import { freePort } from './helpers/processes.js';

const run = promisify(execFile);
const root = resolve(import.meta.dirname ?? new URL('.', import.meta.url).pathname, '..');

function checkout(): string {
  const dir = mkdtempSync(join(tmpdir(), 'souk-quickstart-'));
  copyFileSync(join(root, 'package.json'), join(dir, 'package.json'));
  cpSync(join(root, 'bin'), join(dir, 'bin'), { recursive: true });
  symlinkSync(join(root, 'dist'), join(dir, 'dist'));
  symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

it("npm start serves on a fresh SQLite database and the demo's curl commands work", async () => {
  const dir = checkout();
  const port = await freePort();
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port) };
  delete env.DATABASE_URL;
  const server = spawn('npm', ['start'], { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  after(() => {
    try {
      process.kill(-server.pid!, 'SIGTERM');
    } catch {
      // already gone
    }
    rmSync(dir, { recursive: true, force: true });
  });
  let output = '';
  server.stdout.on('data', (d) => (output += d));
  server.stderr.on('data', (d) => (output += d));
  const address = `http://127.0.0.1:${port}/wp-json/rtcl/v1`;
  for (let i = 0; i < 200 && !output.includes(`serving the interface at ${address}`); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(output.includes(`Souk is serving the interface at ${address}`), `npm start printed: ${output}`);
  assert.ok(existsSync(join(dir, 'data', 'souk.db')), 'the database is created under ./data/');

  const demo = await run(join(dir, 'bin', 'souk'), ['demo'], { cwd: dir, env });
  // Every line it prints to paste, in one bash as a newcomer would: the whole exchange of the issue.
  const exchange = await runDemoCommands('bash', demoCommands(demo.stdout), { cwd: dir });
  checkExchange(exchange, address);
  // Saving the listing again removes it, as the demo says.
  const toggle = demoCommands(demo.stdout).find((line) => line.includes("/my/favourites' ") && line.includes(' -X POST '))!;
  const again = await runDemoCommands('bash', [`BUYER_TOKEN='${exchange.vars.BUYER_TOKEN}'`, toggle], { cwd: dir });
  assert.deepEqual([again.steps[1]!.statuses, again.steps[1]!.reply], [[200], '[]']);
  // Node.js prints a process warning as "(node:PID) [CODE] ...Warning: ..."; a user should see none.
  assert.doesNotMatch(output, /\(node:\d+\)/, 'no process warning on the console');
});
