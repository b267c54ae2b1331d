/**
 * The password threads of a real `souk serve` process: a sign-in is verified on a thread of its own
 * that runs at PASSWORD_NICE (Linux's nice is per thread, read here from /proc), while the event
 * loop's thread keeps the process's priority; PASSWORD_CONCURRENCY bounds how many there are.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { hashPassword } from '../../src/auth/passwords.js';
import { marketplace, USERS } from '../helpers/fixtures.js';
import { startServerProcess } from '../helpers/processes.js';
import { startTestSouk } from '../helpers/souk.js';

const PASSWORD = 'a long enough password';

/** The nice value of each of the process's threads, by thread id (proc(5): the 19th field of stat). */
function threadNice(pid: number): Map<number, number> {
  const nice = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    const stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    // Fields after the command name, which is in parentheses and may hold spaces: state is the 3rd.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    nice.set(Number(tid), Number(fields[16]));
  }
  return nice;
}

/** A `souk serve` process on a marketplace where amina has PASSWORD; `signIn` posts her login. */
async function serveWithPassword(env: Record<string, string>) {
  const doc = marketplace();
  const hash = await hashPassword(PASSWORD);
  doc.users = doc.users!.map((u) => (u.id === USERS.amina ? { ...u, password_hash: hash } : u));
  const t = await startTestSouk({}, doc);
  const server = await startServerProcess({ DATABASE_URL: t.database.url, SITE_URL: t.config.siteUrl, ...env });
  const signIn = () =>
    fetch(`${server.base}/wp-json/rtcl/v1/login`, {
      method: 'POST',
      headers: { 'x-api-key': t.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'amina', password: PASSWORD }),
    });
  return { server, signIn };
}

const niceThreads = (pid: number, value: number) => [...threadNice(pid)].filter(([, n]) => n === value).map(([tid]) => tid);

describe('password threads', { skip: process.platform !== 'linux' && 'per-thread nice values are Linux only' }, () => {
  it('verify sign-ins at the lowest priority, at most PASSWORD_CONCURRENCY of them, and leave the event loop at the process priority', async () => {
    // Six at once: sign-ins in flight hold their place in the budget of one account from one address (5 by default).
    const { server, signIn } = await serveWithPassword({ PASSWORD_CONCURRENCY: '2', LOGIN_FAILURES_PER_USERNAME: '6' });
    assert.deepEqual(niceThreads(server.pid, 19), [], 'no password thread before the first sign-in');
    const replies = await Promise.all(Array.from({ length: 6 }, signIn));
    assert.deepEqual(
      replies.map((r) => r.status),
      [200, 200, 200, 200, 200, 200],
    );
    const low = niceThreads(server.pid, 19);
    assert.ok(low.length >= 1 && low.length <= 2, `${low.length} threads at nice 19`);
    assert.equal(threadNice(server.pid).get(server.pid), 0, "the event loop's thread keeps nice 0");
  });

  it('keep the process priority with PASSWORD_NICE=0', async () => {
    const { server, signIn } = await serveWithPassword({ PASSWORD_NICE: '0' });
    assert.equal((await signIn()).status, 200);
    assert.deepEqual(niceThreads(server.pid, 19), []);
    assert.ok([...threadNice(server.pid).values()].every((n) => n === 0));
  });
});
