/**
 * Every refused sign-in does the same work, whatever the account and its hash (docs/hardening.md,
 * "Second security round", 5): at least one verification at Souk's own cost ($wp$2y$10, a burn's),
 * so the time of a refusal does not tell which accounts exist. Counted, not timed: the metrics show
 * the verifications the password threads finished, by the form of the hash verified against (a burn
 * verifies against a $wp$2y$10 hash of a random password). Through the real app and its /metrics.
 * The refusal latencies themselves: `npm run bench -- --sign-in-refusals` (docs/hardening.md).
 */
import { before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { hashPassword } from '../../src/auth/passwords.js';
import { marketplace } from '../helpers/fixtures.js';
import { startTestSouk, type TestSouk } from '../helpers/souk.js';

const METRICS_TOKEN = 'metrics-token-of-the-sign-in-work-tests';
const PASSWORD = 'the right password';
const DEAR_BCRYPT = `$2y$15$${'a'.repeat(53)}`;
const DEAR_ARGON2 = '$argon2id$v=19$m=1048576,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc';

/** A user per hash form, and one per kind of account that has no usable hash. */
async function accounts() {
  const doc = marketplace();
  const user = (id: number, login: string, extra: Record<string, unknown>) => ({ id, login, email: `${login}@example.test`, ...extra });
  doc.users = [
    ...doc.users!,
    user(11, 'wordpress', { password_hash: await hashPassword(PASSWORD) }),
    // Openwall phpass's own test vector (test12345), and PHP's documented bcrypt one (rasmuslerdorf).
    user(12, 'phpass', { password_hash: '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0' }),
    user(13, 'bcrypt', { password_hash: '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a' }),
    user(14, 'cheapbcrypt', { password_hash: '$2y$04$usesomesillystringfore7hnbRJHxXVLeakoG8K30oukPsA.ztMG' }),
    user(18, 'argon2id', { password_hash: '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc' }),
    // Their hashes are stored below: the import refuses them.
    user(19, 'dearbcrypt', {}),
    user(20, 'dearargon2', {}),
    user(15, 'md5', { password_hash: '5f4dcc3b5aa765d61d8327deb882cf99' }),
    user(16, 'nopassword', {}),
    user(17, 'disabled', { password_hash: await hashPassword(PASSWORD), disabled: true }),
  ];
  return doc;
}

type Work = Record<string, number>;

const lines: string[] = [];
// Started here, not in a hook: startTestSouk closes its Souk after the test that started it.
const started = accounts().then((doc) =>
  startTestSouk({ METRICS_TOKEN, LOGIN_FAILURES_PER_USERNAME: '0', LOGIN_FAILURES_PER_ADDRESS: '0', LOG_LEVEL: 'warn' }, doc, {
    logDestination: { write: (line) => lines.push(line) },
  }),
);

describe('the work of a refused sign-in', () => {
  let t: TestSouk;
  before(async () => {
    t = await started;
    // Well-formed, and over the bounds (docs/hardening.md, "Dear hashes"), as a site's own tables or an
    // older import could hold them: never verified.
    for (const [userId, hash] of [
      [19, DEAR_BCRYPT],
      [20, DEAR_ARGON2],
    ] as const) {
      await t.souk.store.db.insertInto('user_credentials').values({ user_id: userId, password_hash: hash }).execute();
    }
    // The first refusal of an unknown name makes the burn's hash (once per process): not measured.
    await refuse('warm-up');
  });

  /** The verifications finished so far, by form, and the threads' tasks. */
  async function work(): Promise<Work> {
    const res = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
    const counts: Work = {};
    for (const [, form, n] of res.body.matchAll(/^souk_password_verifications_total\{form="(\w+)"\} (\d+)$/gm)) counts[form!] = Number(n);
    counts.tasks = Number(/^souk_password_tasks_total (\d+)$/m.exec(res.body)?.[1]);
    return counts;
  }

  async function refuse(username: string): Promise<void> {
    const res = await t.post('/wp-json/rtcl/v1/login', { username, password: 'not the password' }, { 'x-api-key': t.apiKey });
    assert.equal(res.statusCode, 400, `${username}: ${res.body}`);
  }

  /** The verifications (and tasks) one refusal of `username` added, zeros left out. */
  async function workOf(username: string): Promise<Work> {
    const before = await work();
    await refuse(username);
    const after = await work();
    return Object.fromEntries(Object.entries(after).flatMap(([k, v]) => (v - (before[k] ?? 0) ? [[k, v - (before[k] ?? 0)]] : [])));
  }

  const cases: Array<[string, string, Work]> = [
    ['an unknown name', 'nobody', { wordpress: 1, tasks: 1 }],
    ['a $wp$2y$10 user', 'wordpress', { wordpress: 1, tasks: 1 }],
    ['a $2y$10 user', 'bcrypt', { bcrypt: 1, tasks: 1 }],
    ['a phpass user: theirs, then a burn', 'phpass', { phpass: 1, wordpress: 1, tasks: 2 }],
    ['a $2y$04 user: theirs, then a burn', 'cheapbcrypt', { bcrypt: 1, wordpress: 1, tasks: 2 }],
    ['an argon2id user: theirs, then a burn', 'argon2id', { argon2id: 1, wordpress: 1, tasks: 2 }],
    ['an unsupported hash: a burn only', 'md5', { wordpress: 1, tasks: 1 }],
    ['a bcrypt hash of cost 15: a burn only', 'dearbcrypt', { wordpress: 1, tasks: 1 }],
    ['an argon2id hash of 1 GiB: a burn only', 'dearargon2', { wordpress: 1, tasks: 1 }],
    ['a user without a password', 'nopassword', { wordpress: 1, tasks: 1 }],
    ['a disabled user', 'disabled', { wordpress: 1, tasks: 1 }],
  ];
  for (const [label, username, expected] of cases) {
    it(`${label}: ${JSON.stringify(expected)}`, async () => {
      assert.deepEqual(await workOf(username), expected);
    });
  }

  it('a hash too dear to verify is logged as a warning naming the user, never the hash', async () => {
    const warnings = () => lines.map((l) => JSON.parse(l) as { level: number; msg: string; userId?: number }).filter((l) => l.level === 40);
    const before = warnings().length;
    await refuse('dearbcrypt');
    const added = warnings().slice(before);
    assert.equal(added.length, 1, JSON.stringify(added));
    assert.equal(added[0]!.userId, 19);
    assert.match(added[0]!.msg, /costs more than Souk verifies/);
    assert.ok(!lines.join('').includes(DEAR_BCRYPT.slice(7)), 'the hash is not logged');
  });
});
