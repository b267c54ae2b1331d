/**
 * souk reports list [--open] and souk reports close ID, and souk settings set for the chat's bad
 * words, through the built CLI (npm run build first) on a scratch SQLite database.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { openMigratedStore } from '../../src/store/index.js';
import type { Message } from '../../src/domain/model.js';
import { ok, scratch, souk } from '../helpers/cli.js';

const message: Message = {
  id: 7,
  conId: 3,
  sourceId: 2,
  text: 'Pay by gift card',
  type: 'text',
  attachments: null,
  isRead: false,
  tempId: null,
  createdAt: Date.parse('2026-11-20T10:00:00Z'),
};

async function withReports(db: string): Promise<void> {
  const store = await openMigratedStore(`sqlite:${db}`, { poolSize: 1, statementTimeoutMs: 5000, connectTimeoutMs: 5000 }, db);
  try {
    await store.transaction(async (repos) => {
      const base = { reporterId: 1, messageId: null, conId: null, messages: [], createdAt: Date.parse('2026-11-21T09:00:00Z') };
      await repos.reports.add({ ...base, kind: 'listing', listingId: 101, reportedUserId: 2, reason: 'A scam,\nclearly' });
      await repos.reports.add({
        ...base,
        kind: 'message',
        listingId: 101,
        conId: 3,
        messageId: 7,
        reportedUserId: 2,
        reason: 'gift cards',
        messages: [message],
        createdAt: Date.parse('2026-11-21T10:00:00Z'),
      });
    });
  } finally {
    await store.close();
  }
}

describe('souk reports', () => {
  it('lists the reports, newest first, closes one, and lists only the open ones with --open', async (t) => {
    const { db } = scratch(t);
    await withReports(db);
    const header = 'id\tstatus\tcreated\treporter\treported user\tabout\tmessages kept\treason\n';
    const both =
      '2\topen\t2026-11-21T10:00:00.000Z\t1\t2\tmessage 7 in conversation 3\t1\tgift cards\n' +
      '1\topen\t2026-11-21T09:00:00.000Z\t1\t2\tlisting 101\t0\tA scam, clearly\n';
    assert.equal(await ok(db, ['reports', 'list']), header + both);
    assert.equal(await ok(db, ['reports', 'close', '1']), 'report 1 closed\n');
    assert.equal(await ok(db, ['reports', 'close', '1']), 'report 1 was already closed\n');
    assert.equal(await ok(db, ['reports', 'list', '--open']), header + both.split('\n')[0] + '\n');
    assert.match(await ok(db, ['reports', 'list']), /^1\tclosed\t/m);
    assert.deepEqual(await souk(db, ['reports', 'close', '9']), { code: 1, stdout: '', stderr: 'souk: no report with id 9\n' });
    const refused = await souk(db, ['reports', 'list', '--open=yes']);
    assert.deepEqual(refused, { code: 2, stdout: '', stderr: 'souk: reports list: --open takes no value; see souk reports list --help\n' });
    const help = await ok(db, ['reports', 'list', '--help']);
    assert.match(help, /^usage: souk reports list \[--open\] \[--limit N\]\n/);
    assert.match(await ok(db, ['--help']), /reports close/);
  });

  it("writes the controls of a reporter's words as \\uXXXX, never raw to the terminal", async (t) => {
    const { db } = scratch(t);
    const store = await openMigratedStore(`sqlite:${db}`, { poolSize: 1, statementTimeoutMs: 5000, connectTimeoutMs: 5000 }, db);
    // An escape sequence that clears the screen and retitles the window, a C1 CSI, a right-to-left override, a tab.
    const reason = 'look\u001b[2J\u001b]0;pwned\u0007 \u009b31m \u202egnp.exe\tend';
    try {
      await store.transaction(async (repos) => {
        await repos.reports.add({
          reporterId: 1,
          kind: 'message',
          listingId: 101,
          conId: 3,
          messageId: 7,
          reportedUserId: 2,
          reason,
          messages: [{ ...message, text: 'hi\u202e\u0085' }],
          createdAt: Date.parse('2026-11-21T10:00:00Z'),
        });
      });
    } finally {
      await store.close();
    }
    const listed = await ok(db, ['reports', 'list']);
    assert.equal(
      listed.split('\n')[1],
      '1\topen\t2026-11-21T10:00:00.000Z\t1\t2\tmessage 7 in conversation 3\t1\t' +
        'look\\u001b[2J\\u001b]0;pwned\\u0007 \\u009b31m \\u202egnp.exe end',
    );
    // eslint-disable-next-line no-control-regex -- no control reaches the terminal
    assert.doesNotMatch(listed, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/);
    // An error quoting what was typed is escaped alike.
    const refused = await souk(db, ['reports', 'close', '\u001b[2J']);
    assert.equal(refused.code, 1);
    assert.equal(refused.stderr, 'souk: ID must be a positive integer, got "\\u001b[2J"\n');
    assert.ok(!refused.stderr.includes('\u001b'));
  });

  it('settings set bad_words and bad_words_action', async (t) => {
    const { db } = scratch(t);
    assert.equal(await ok(db, ['settings', 'set', 'bad_words', ' scam, Western Union,,scam ']), 'bad_words=scam,Western Union\n');
    assert.equal(await ok(db, ['settings', 'get', 'bad_words']), 'scam,Western Union\n');
    assert.equal(await ok(db, ['settings', 'set', 'bad_words_action', 'mask']), 'bad_words_action=mask\n');
    const refused = await souk(db, ['settings', 'set', 'bad_words_action', 'hide']);
    assert.deepEqual(refused, { code: 1, stdout: '', stderr: 'souk: bad_words_action must be reject or mask, got "hide"\n' });
    assert.match(await ok(db, ['settings']), /^bad_words=scam,Western Union\nbad_words_action=mask\n/m);
  });
});
