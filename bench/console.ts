/**
 * `npx tsx bench/console.ts [DATABASE_URL]`: the staff console's pages, their server time on a big
 * marketplace (100,000 users, 1,200,000 messages; docs/console.md asks well under 100 ms a page).
 * Builds the data set (bench/dataset.ts) into DATABASE_URL (default a fresh SQLite file under
 * .scratch/), files 500 reports, sets an owner up and signs them in as a browser does, then asks each
 * page 300 times through Fastify's inject (the server's own time: routing, session, queries,
 * rendering; no network) and prints p50 and p99. Not a row of `npm run bench`: pages are read by a
 * few staff, not under load.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { LightMyRequestResponse } from 'fastify';
import { newSetupToken, setupDigest, totpCode } from '../src/auth/staff.js';
import { CLI_ACTOR } from '../src/domain/audit.js';
import { addStaff } from '../src/domain/staff/members.js';
import { loadConfig } from '../src/config.js';
import { createSouk } from '../src/server.js';
import { buildDataset } from './dataset.js';
import { fileReports } from './console-session.js';

const SCRATCH = fileURLToPath(new URL('../.scratch/', import.meta.url));
const url = process.argv[2] ?? `sqlite:${SCRATCH}console-bench.db`;
const REPORTS = 500;
const RUNS = 300;

if (!url.startsWith('sqlite:') || !existsSync(url.slice('sqlite:'.length))) {
  mkdirSync(SCRATCH, { recursive: true });
  const data = await buildDataset({
    url,
    sizes: { users: 100_000, listings: 100_000, favouritesPerUser: 2, conversations: 600_000, readers: 200 },
  });
  console.log(`data set: ${data.counts.users} users, ${data.counts.conversations} conversations, ${data.counts.messages} messages`);
}
const config = loadConfig({ DATABASE_URL: url, LOG_LEVEL: 'silent', RATE_LIMIT_AUTH_FAILURES: '0' });
const souk = await createSouk(config);
const { store } = souk;
try {
  // Reports of messages in the readers' threads (ids after the 600,000 conversations).
  await fileReports(
    store,
    Array.from({ length: 5000 }, (_, i) => 600_001 + i),
    REPORTS,
  );
  const token = newSetupToken();
  const email = `bench-${Date.now()}@example.com`;
  await addStaff({ staff: store.staff, audit: store.audit, now: Date.now }, CLI_ACTOR, email, 'owner', setupDigest(token));
  let cookie = '';
  let csrf = '';
  const take = (res: LightMyRequestResponse) => {
    for (const line of ([] as string[]).concat((res.headers['set-cookie'] as string | string[] | undefined) ?? [])) {
      const [pair] = line.split(';');
      if (pair!.startsWith('souk_console=')) cookie = pair!;
    }
    csrf = /name="_csrf" value="([^"]+)"/.exec(res.body)?.[1] ?? csrf;
    return res;
  };
  const get = async (path: string) => take(await souk.app.inject({ method: 'GET', url: path, headers: { cookie } }));
  const post = async (path: string, form: Record<string, string>) =>
    take(
      await souk.app.inject({
        method: 'POST',
        url: path,
        payload: new URLSearchParams({ _csrf: csrf, ...form }).toString(),
        headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
      }),
    );
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec((await get(`/console/setup/${token}`)).body)![1]!;
  const password = 'a benchmark password';
  await post(`/console/setup/${token}`, { password, password_again: password, code: totpCode(secret, Date.now()) });
  await get('/console/sign-in');
  const signedIn = await post('/console/sign-in', { email, password, code: totpCode(secret, Date.now() + 30_000) });
  if (signedIn.statusCode !== 303) throw new Error(`sign-in answered ${signedIn.statusCode}`);
  const reportId = (await store.reports.list({ open: true, limit: 1 }))[0]!.id;
  const pages: Array<[string, () => Promise<LightMyRequestResponse>]> = [
    ['overview', () => get('/console')],
    ['reports queue', () => get('/console/reports')],
    ['a report in context', () => get(`/console/reports/${reportId}`)],
    ["a user's page", () => get('/console/users/99950')],
    ['users search', () => get('/console/users?q=99950')],
    ["a user's conversations", () => get('/console/conversations?user=99950')],
    ['reading a conversation', () => post('/console/conversations/600010/read', { reason: 'benchmark' })],
    ['audit log', () => get('/console/audit')],
  ];
  for (const [name, ask] of pages) {
    const first = await ask();
    if (first.statusCode !== 200) throw new Error(`${name} answered ${first.statusCode}`);
    for (let i = 0; i < 20; i++) await ask();
    const times: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const t0 = performance.now();
      await ask();
      times.push(performance.now() - t0);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => times[Math.min(RUNS - 1, Math.floor(q * RUNS))]!.toFixed(1);
    console.log(`${name.padEnd(24)} p50 ${at(0.5)} ms  p99 ${at(0.99)} ms`);
  }
} finally {
  await souk.close();
}
