/**
 * `souk demo`'s printed commands, run as a newcomer runs them: pasted, in order, into one shell
 * (test/cli/cli.test.ts and test/quickstart.test.ts). The lines run exactly as printed; the only
 * addition is a `curl` shell function that calls the real curl and also writes each reply's HTTP
 * status to standard error, so that every step's status can be checked.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);
const STEP = '@@STEP';
const STATUS = /^@@STATUS (\d{3})$/;

export interface DemoStep {
  command: string;
  /** HTTP statuses of the curl calls the line made. */
  statuses: number[];
  /** The reply the user sees: curl's output, or what `pick` printed of it for a line that keeps a field. */
  reply: string;
  /** What the line printed on standard output (empty for `VAR=$(...)` lines). */
  stdout: string;
}

export interface DemoExchange {
  steps: DemoStep[];
  /** The shell variables once every line has run. */
  vars: { BUYER_TOKEN: string; SELLER_TOKEN: string; CON_ID: string; MESSAGE_ID: string };
}

/** The lines to paste: from the `pick` helper on, without comments and blank lines. */
export function demoCommands(demoOutput: string): string[] {
  const lines = demoOutput.split('\n');
  const first = lines.findIndex((line) => line.startsWith('pick() {'));
  assert.ok(first >= 0, `no pick() helper in:\n${demoOutput}`);
  return lines.slice(first).filter((line) => line.trim() !== '' && !line.startsWith('#'));
}

/** Runs the lines in one `shell` process, in order, and splits what each printed. */
export async function runDemoCommands(
  shell: 'sh' | 'bash',
  commands: string[],
  opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<DemoExchange> {
  const script = [
    `curl() { command curl "$@" -w '\\n%{stderr}\\n@@STATUS %{http_code}\\n'; }`,
    ...commands.flatMap((command) => [command, `printf '\\n${STEP}\\n'; printf '\\n${STEP}\\n' >&2`]),
    `printf '@@VARS %s %s %s %s\\n' "$BUYER_TOKEN" "$SELLER_TOKEN" "$CON_ID" "$MESSAGE_ID"`,
  ].join('\n');
  const { stdout, stderr } = await run(shell, ['-c', script], { ...opts, maxBuffer: 16 * 1024 * 1024 });
  const outs = stdout.split(`\n${STEP}\n`);
  const errs = stderr.split(`\n${STEP}\n`);
  assert.equal(outs.length, commands.length + 1, stdout);
  assert.equal(errs.length, commands.length + 1, stderr);
  const steps = commands.map((command, i) => {
    const errLines = errs[i]!.split('\n');
    const statuses = errLines.flatMap((line) => (STATUS.test(line) ? [Number(STATUS.exec(line)![1])] : []));
    const shown = errLines.filter((line) => !STATUS.test(line) && line.trim() !== '').join('\n');
    const out = outs[i]!.trim();
    return { command, statuses, stdout: out, reply: command.includes('| pick ') ? shown : out };
  });
  const vars = /@@VARS (\S*) (\S*) (\S*) (\S*)/.exec(outs[commands.length]!);
  assert.ok(vars, stdout);
  return { steps, vars: { BUYER_TOKEN: vars[1]!, SELLER_TOKEN: vars[2]!, CON_ID: vars[3]!, MESSAGE_ID: vars[4]! } };
}

const HELLO = 'Hello, is the bike still available?';
const ANSWER = 'Yes, it is. You can try it on Saturday.';

/**
 * Checks a fresh demo's whole exchange: the lines are the helper, the seller's token, then the nine
 * calls in the order, the photo and the block's three, and each reply has the status and content it should.
 */
export function checkExchange({ steps, vars }: DemoExchange, base: string): void {
  const [pick, sellerToken, ...calls] = steps;
  assert.match(pick!.command, /^pick\(\) \{ node -e '/);
  assert.match(sellerToken!.command, /^SELLER_TOKEN='[A-Za-z0-9_.-]+'$/);
  for (const step of [pick!, sellerToken!]) assert.deepEqual([step.statuses, step.stdout, step.reply], [[], '', '']);
  const expected: [string, string][] = [
    ['POST', `'${base}/login'`],
    ['POST', `'${base}/my/favourites'`],
    ['GET', `'${base}/my/favourites'`],
    ['POST', `'${base}/my/chat/conversation'`],
    ['GET', `'${base}/my/chat'`],
    ['GET', `"${base}/my/chat/conversation?con_id=$CON_ID"`],
    ['POST', `'${base}/my/chat/message'`],
    ['GET', `"${base}/my/chat/conversation?con_id=$CON_ID"`],
    ['PUT', `"${base}/my/chat/message?con_id=$CON_ID&message_id=$MESSAGE_ID"`],
    ['POST', `'${base}/my/chat/message'`],
    ['POST', `'${base}/privacy/user/block'`],
    ['POST', `'${base}/my/chat/message'`],
    ['DELETE', `'${base}/privacy/user/block?user_id=1'`],
    ['POST', `'${base}/my/chat/report'`],
  ];
  /** The one call the demo shows refused: the blocked buyer's message. */
  const REFUSED = 11;
  assert.equal(calls.length, expected.length, calls.map((c) => c.command).join('\n'));
  calls.forEach((call, i) => {
    const [method, url] = expected[i]!;
    assert.ok(call.command.includes(` ${url}`), `step ${i + 1} calls ${url}: ${call.command}`);
    assert.equal(/ -X (\w+) /.exec(call.command)?.[1] ?? 'GET', method, call.command);
    assert.deepEqual(call.statuses, [i === REFUSED ? 403 : 200], `step ${i + 1}: ${call.command}\n${call.reply}`);
  });
  const [login, toggle, favourites, start, chats, sellerReads, answer, buyerReads, markRead, photo, block, refused, unblock, report] =
    calls.map((c) => c.reply) as [
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
      string,
    ];

  // 1. The buyer signs in with the printed password; her token is the one the later lines send.
  const signedIn = JSON.parse(login);
  assert.equal(signedIn.token_type, 'Bearer');
  assert.deepEqual([signedIn.user.id, signedIn.user.username], [1, 'amina']);
  assert.equal(vars.BUYER_TOKEN, signedIn.jwt_token);
  assert.ok(calls.slice(1).every((c) => /\$(BUYER|SELLER)_TOKEN/.test(c.command)));
  // 2-3. She saves listing 101 and sees it in her favourites.
  assert.equal(toggle, '[101]');
  const saved = JSON.parse(favourites);
  assert.deepEqual(
    saved.data.map((l: { listing_id: number; title: string }) => [l.listing_id, l.title]),
    [[101, 'Road bike']],
  );
  assert.equal(saved.pagination.total, 1);
  // 4. She starts a conversation with the owner; its id is kept.
  const started = JSON.parse(start);
  assert.equal(started.listing_id, 101);
  assert.equal(started.newMessage.message, HELLO);
  assert.equal(started.newMessage.temp_id, '1');
  assert.equal(started.recipient.name, 'Youssef B.');
  assert.equal(vars.CON_ID, String(started.con_id));
  // 5. The seller sees it in his chats, unread.
  const list = JSON.parse(chats);
  assert.equal(list.data.length, 1, chats);
  assert.deepEqual(
    [list.data[0].con_id, list.data[0].last_message, list.data[0].display_name, list.data[0].unread_count],
    [started.con_id, HELLO, 'Amina K.', 1],
  );
  // 6. He reads it.
  const seen = JSON.parse(sellerReads);
  assert.equal(seen.con_id, started.con_id);
  assert.deepEqual(
    seen.messages.map((m: { message: string; source_id: string }) => [m.message, m.source_id]),
    [[HELLO, '1']],
  );
  // 7. He answers; the answer's id is kept.
  const sent = JSON.parse(answer);
  assert.deepEqual([sent.con_id, sent.source_id, sent.message, sent.is_read], [started.con_id, 2, ANSWER, 0]);
  assert.equal(vars.MESSAGE_ID, String(sent.message_id));
  // 8. The buyer reads the answer, newest first, still unread.
  const read = JSON.parse(buyerReads);
  assert.deepEqual(
    read.messages.map((m: { message_id: string; message: string; source_id: string; is_read: string }) => [
      m.message_id,
      m.message,
      m.source_id,
      m.is_read,
    ]),
    [
      [String(sent.message_id), ANSWER, '2', '0'],
      [String(started.newMessage.message_id), HELLO, '1', '0'],
    ],
  );
  // 9. She marks it read: one message changed.
  assert.equal(markRead, '1');
  // 10. The seller sends a photo: stored, an image, a message of type attachment.
  const withPhoto = JSON.parse(photo);
  assert.equal(withPhoto.type, 'attachment', photo);
  assert.deepEqual([withPhoto.attachments[0].type, withPhoto.attachments[0].mimeType], ['image', 'image/jpeg']);
  // 11-13. The seller blocks her, her next message is refused, he unblocks her.
  assert.deepEqual(JSON.parse(block), [{ id: 1, name: 'Amina K.', email: '' }]);
  assert.deepEqual(JSON.parse(refused), { code: 'FORBIDDEN', message: 'You cannot send messages to this user.' });
  assert.equal(unblock, '[]');
  // 14. She reports the conversation.
  assert.deepEqual(JSON.parse(report), { reported: true });
}
