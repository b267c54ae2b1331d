/**
 * Secrets from files (issue 17): API_KEY_FILE, JWT_SECRET_FILE and METRICS_TOKEN_FILE, the way
 * container secrets arrive. A server started with them uses the files' content less one trailing
 * newline; a bad combination or file stops start-up with an error that names the setting and the
 * path and prints no secret.
 */
import { describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { signToken } from '../../src/auth/jwt.js';
import { loadConfig } from '../../src/config.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';
import { PATHS, startTestSouk } from '../helpers/souk.js';

const ROOT = new URL('../../', import.meta.url);
const API_KEY = 'file-api-key-0123456789abcdef';
const JWT_SECRET = 'file-jwt-secret-0123456789abcdef';
const TOKEN_MAC_KEY = 'file-token-mac-key-0123456789abcdef';
const METRICS_TOKEN = 'file-metrics-token-0123456789';

/** Writes each content to a file of its own in a scratch folder and returns their paths. */
function files(t: TestContext, contents: Record<string, string>): Record<string, string> {
  const dir = mkdtempSync(join(tmpdir(), 'souk-secret-files-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return Object.fromEntries(
    Object.entries(contents).map(([name, content]) => {
      const path = join(dir, name);
      writeFileSync(path, content, { mode: 0o600 });
      return [name, path];
    }),
  );
}

/** Runs `souk config` from the sources (the same main() that bin/souk runs from dist/). */
function soukConfig(env: Record<string, string>) {
  const script = "import('./src/cli/main.ts').then((cli) => cli.main(['config']))";
  return spawnSync(process.execPath, ['--import', 'tsx', '-e', script], {
    cwd: ROOT,
    env: { PATH: process.env.PATH, ...env },
    encoding: 'utf8',
  });
}

describe('secrets from files', () => {
  it('a server started with API_KEY_FILE, JWT_SECRET_FILE and METRICS_TOKEN_FILE uses their content less the trailing newline', async (t) => {
    const paths = files(t, { key: `${API_KEY}\n`, jwt: `${JWT_SECRET}\r\n`, mac: `${TOKEN_MAC_KEY}\n`, metrics: `${METRICS_TOKEN}\n` });
    const souk = await startTestSouk({
      API_KEY_FILE: paths.key!,
      JWT_SECRET_FILE: paths.jwt!,
      TOKEN_MAC_KEY_FILE: paths.mac!,
      METRICS_TOKEN_FILE: paths.metrics!,
    });
    const base = await souk.listen();
    const toggle = (apiKey: string) =>
      fetch(`${base}${PATHS.toggle}`, {
        method: 'POST',
        headers: {
          'x-api-key': apiKey,
          authorization: `Bearer ${signToken({ jwtSecret: JWT_SECRET, tokenMacKey: TOKEN_MAC_KEY }, USERS.amina, 'amina', 600)}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ listing_id: LISTINGS.bike }),
      });
    const accepted = await toggle(API_KEY);
    assert.equal(accepted.status, 200, await accepted.text());
    assert.equal((await toggle(`${API_KEY}x`)).status, 401);
    assert.equal((await fetch(`${base}/metrics`)).status, 401);
    assert.equal((await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status, 200);
  });

  it('only one trailing newline is dropped: the rest of the file is the secret', (t) => {
    const paths = files(t, { two: `${API_KEY}\n\n`, inner: `${JWT_SECRET}\nmore` });
    const config = loadConfig({ API_KEY_FILE: paths.two!, JWT_SECRET_FILE: paths.inner! });
    assert.equal(config.apiKey, `${API_KEY}\n`);
    assert.equal(config.jwtSecret, `${JWT_SECRET}\nmore`);
  });

  it('souk config masks secrets read from files', (t) => {
    const paths = files(t, { key: `${API_KEY}\n`, jwt: JWT_SECRET, metrics: METRICS_TOKEN });
    const res = soukConfig({ API_KEY_FILE: paths.key!, JWT_SECRET_FILE: paths.jwt!, METRICS_TOKEN_FILE: paths.metrics! });
    assert.equal(res.status, 0, res.stderr);
    const lines = res.stdout.split('\n');
    for (const name of ['API_KEY', 'JWT_SECRET', 'METRICS_TOKEN']) assert.ok(lines.includes(`${name}=****`), res.stdout);
    for (const value of [API_KEY, JWT_SECRET, METRICS_TOKEN]) assert.ok(!res.stdout.includes(value) && !res.stderr.includes(value), value);
  });

  it('refuses both X and X_FILE, an empty or unreadable file and a short secret, naming the setting and printing no secret', (t) => {
    const paths = files(t, { key: API_KEY, empty: '', newline: '\n', short: 'short-secret\n' });
    const missing = join(tmpdir(), 'souk-no-such-secret-file');
    const cases: Array<[Record<string, string>, string]> = [
      [{ API_KEY, API_KEY_FILE: paths.key! }, 'API_KEY and API_KEY_FILE are both set; set only one'],
      [{ JWT_SECRET, JWT_SECRET_FILE: paths.key! }, 'JWT_SECRET and JWT_SECRET_FILE are both set; set only one'],
      [{ METRICS_TOKEN_FILE: paths.empty! }, `METRICS_TOKEN_FILE names an empty file: ${paths.empty}`],
      [{ API_KEY_FILE: paths.newline! }, `API_KEY_FILE names an empty file: ${paths.newline}`],
      [{ JWT_SECRET_FILE: missing }, `JWT_SECRET_FILE names a file that cannot be read: ${missing} (ENOENT)`],
      [{ API_KEY_FILE: paths.short! }, 'API_KEY must be at least 16 characters long'],
    ];
    for (const [env, message] of cases) assert.throws(() => loadConfig(env), { name: 'ConfigError', message }, JSON.stringify(env));
    // What `souk config` (and `souk serve`, which loads the same configuration) prints of one of them.
    const res = soukConfig({ API_KEY, API_KEY_FILE: paths.key! });
    assert.equal(res.status, 1);
    assert.equal(res.stdout, '');
    assert.equal(res.stderr, 'souk: invalid setting: API_KEY and API_KEY_FILE are both set; set only one\n');
  });
});
