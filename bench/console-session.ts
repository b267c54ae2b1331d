/**
 * The console rows' staff member (bench/scenarios.ts consoleScenario): reports filed in the readers'
 * threads, once per data set, and an owner set up and signed in to a running Souk as a browser does
 * (set-up link, password and TOTP enrolment, sign-in with the next TOTP code), over HTTP. The
 * session's cookie and CSRF token then go with every request of the row.
 */
import { newSetupToken, setupDigest, totpCode } from '../src/auth/staff.js';
import { CLI_ACTOR } from '../src/domain/audit.js';
import { addStaff } from '../src/domain/staff/members.js';
import { openStore } from '../src/store/index.js';
import type { Store } from '../src/store/common/store.js';
import type { Dataset } from './dataset.js';

/** Reports the queue holds: ten of the console's pages of 50. */
export const CONSOLE_REPORTS = 500;
const STEP_MS = 30_000;

export interface ConsoleSession {
  /** The `Cookie` header of the signed-in member. */
  cookie: string;
  csrf: string;
  /** The open reports' ids, newest first. */
  reportIds: number[];
}

/**
 * Files `count` reports of the first messages of the conversations `conIds` (in turn), unless the
 * store has that many open already; the open ones' ids, newest first.
 */
export async function fileReports(store: Store, conIds: ArrayLike<number>, count = CONSOLE_REPORTS): Promise<number[]> {
  const open = () => store.reports.list({ open: true, limit: count });
  if ((await open()).length < count) {
    for (let i = 0; i < count; i++) {
      const conId = conIds[i % conIds.length]!;
      const conversation = await store.repos.conversations.findById(conId);
      const [message] = await store.repos.messages.pageOf(conId, 0, 0, 1);
      if (!conversation || !message) throw new Error(`no conversation ${conId} to report in`);
      await store.transaction((repos) =>
        repos.reports.add({
          reporterId: conversation.senderId,
          kind: 'message',
          listingId: conversation.listingId,
          conId,
          messageId: message.id,
          reportedUserId: conversation.recipientId,
          reason: `report ${i}`,
          messages: [message],
          createdAt: Date.now(),
        }),
      );
    }
  }
  return (await open()).map((r) => r.id);
}

/** A browser's cookie jar and CSRF token against the console at `base`. */
class Browser {
  cookie = '';
  csrf = '';
  constructor(private readonly base: string) {}

  private async take(res: Response): Promise<{ status: number; body: string; location: string | null }> {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      if (pair!.startsWith('souk_console=')) this.cookie = pair!;
    }
    const body = await res.text();
    this.csrf = /name="_csrf" value="([^"]+)"/.exec(body)?.[1] ?? this.csrf;
    return { status: res.status, body, location: res.headers.get('location') };
  }

  async get(path: string) {
    return this.take(await fetch(`${this.base}${path}`, { headers: { cookie: this.cookie }, redirect: 'manual' }));
  }

  async post(path: string, form: Record<string, string>) {
    const headers = { cookie: this.cookie, 'content-type': 'application/x-www-form-urlencoded' };
    const body = new URLSearchParams({ _csrf: this.csrf, ...form }).toString();
    return this.take(await fetch(`${this.base}${path}`, { method: 'POST', headers, body, redirect: 'manual' }));
  }
}

/** An owner of the console of the Souk at `url` (on `databaseUrl`), signed in, with the reports filed. */
export async function consoleSession(url: string, databaseUrl: string, data: Dataset): Promise<ConsoleSession> {
  const store = openStore(databaseUrl, { poolSize: 1, statementTimeoutMs: 60_000, connectTimeoutMs: 10_000 });
  const token = newSetupToken();
  const email = `bench-${Date.now()}@example.com`;
  let reportIds: number[];
  try {
    reportIds = await fileReports(store, data.threadId);
    await addStaff({ staff: store.staff, audit: store.audit, now: Date.now }, CLI_ACTOR, email, 'owner', setupDigest(token));
  } finally {
    await store.close();
  }
  const browser = new Browser(url);
  const secret = /id="totp-secret">([A-Z2-7]+)</.exec((await browser.get(`/console/setup/${token}`)).body)?.[1];
  if (!secret) throw new Error('the console set-up page shows no TOTP secret');
  const password = 'a benchmark password';
  await browser.post(`/console/setup/${token}`, { password, password_again: password, code: totpCode(secret, Date.now()) });
  await browser.get('/console/sign-in');
  const signedIn = await browser.post('/console/sign-in', { email, password, code: totpCode(secret, Date.now() + STEP_MS) });
  if (signedIn.status !== 303) throw new Error(`the console's sign-in answered ${signedIn.status}: ${signedIn.body.slice(0, 300)}`);
  const queue = await browser.get('/console/reports');
  if (queue.status !== 200) throw new Error(`the reports queue answered ${queue.status}`);
  return { cookie: browser.cookie, csrf: browser.csrf, reportIds };
}
