/**
 * `npm run bench -- --sign-in-refusals`: how long a refused sign-in (`POST login`, a wrong password)
 * takes for each kind of account: an unknown name, users with $wp$2y$10, $2y$10, phpass, $2y$04,
 * argon2id and unsupported hashes, and a disabled user. Rounds go through the kinds in turn, so load
 * on the machine falls on all alike; median, lowest and highest of the rounds, in ms, through the real
 * app (inject) on a fresh SQLite database. The kinds should cost about the same (docs/hardening.md,
 * "Second security round", 5; test/http/sign-in-work.test.ts asserts the work done). A figure, not a check.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig } from '../src/config.js';
import { createSouk } from '../src/server.js';
import { importCatalog } from '../src/domain/catalog.js';
import { parseImportDocument } from '../src/cli/import-document.js';
import { hashPassword } from '../src/auth/passwords.js';

const ROUNDS = 25;
const PASSWORD = 'the right password';

async function kinds(): Promise<Array<{ label: string; login: string; hash?: string; disabled?: boolean }>> {
  const own = await hashPassword(PASSWORD);
  return [
    { label: 'unknown name', login: 'nobody' },
    { label: '$wp$2y$10 (WordPress 6.8+)', login: 'wordpress', hash: own },
    { label: '$2y$10 (bcrypt)', login: 'bcrypt', hash: '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a' },
    { label: '$P$ phpass (2^11 rounds)', login: 'phpass9', hash: '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0' },
    { label: '$P$B phpass (WordPress, 2^13)', login: 'phpassb', hash: '$P$BZzr5sWqkNfDc0tCpmLUtZ4Qd3LzIx1' },
    { label: '$2y$04 (cheap bcrypt)', login: 'cheap', hash: '$2y$04$usesomesillystringfore7hnbRJHxXVLeakoG8K30oukPsA.ztMG' },
    {
      label: 'argon2id m=64MiB t=2',
      login: 'argon',
      hash: '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
    },
    { label: 'unsupported (md5)', login: 'md5', hash: '5f4dcc3b5aa765d61d8327deb882cf99' },
    { label: 'disabled user', login: 'disabled', hash: own, disabled: true },
  ];
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

export async function signInRefusals(log: (line: string) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'souk-bench-refusals-'));
  const souk = await createSouk(
    loadConfig({
      DATABASE_URL: `sqlite://${join(dir, 'souk.db')}`,
      SITE_URL: 'https://souk.example',
      LOG_LEVEL: 'silent',
      // At the process's priority, one thread: the figures then wait less on the machine's other work.
      PASSWORD_NICE: '0',
      PASSWORD_CONCURRENCY: '1',
      LOGIN_FAILURES_PER_USERNAME: '0',
      LOGIN_FAILURES_PER_ACCOUNT: '0',
      LOGIN_FAILURES_PER_ADDRESS: '0',
    }),
  );
  try {
    const all = await kinds();
    const users = all
      .filter((k) => k.login !== 'nobody')
      .map((k, i) => ({
        id: i + 1,
        login: k.login,
        ...(k.hash ? { password_hash: k.hash } : {}),
        ...(k.disabled ? { disabled: true } : {}),
      }));
    const parsed = parseImportDocument({ users });
    if (!parsed.ok) throw new Error(`${parsed.path}: ${parsed.problem}`);
    const imported = await importCatalog(souk.store, parsed.catalog);
    if (!imported.ok) throw new Error(`${imported.path}: ${imported.problem}`);
    const apiKey = souk.settings.current().apiKey;
    const refuse = async (login: string) => {
      const started = performance.now();
      const res = await souk.app.inject({
        method: 'POST',
        url: '/wp-json/rtcl/v1/login',
        payload: { username: login, password: 'wrong' },
        headers: { 'x-api-key': apiKey },
      });
      if (res.statusCode !== 400) throw new Error(`${login}: ${res.statusCode} ${res.body}`);
      return performance.now() - started;
    };
    for (const k of all) await refuse(k.login); // warm up: threads started, the burn's hash made
    const times = new Map(all.map((k) => [k.login, [] as number[]]));
    for (let round = 0; round < ROUNDS; round++) for (const k of all) times.get(k.login)!.push(await refuse(k.login));
    log(`Refused sign-ins, ms (median, lowest-highest of ${ROUNDS} rounds):`);
    for (const k of all) {
      const xs = times.get(k.login)!;
      log(`  ${k.label.padEnd(32)} ${median(xs).toFixed(1).padStart(6)}  ${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`);
    }
  } finally {
    await souk.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
