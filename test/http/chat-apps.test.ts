/**
 * The public apps' chat flows, replayed in their own wire forms on a real socket (fetch), checking
 * what each app reads from each reply, types included (docs/routes.md: "Two generations of reply",
 * N2, N4). The apps parse the classic generation (CHAT_REPLY_FORMAT=classic):
 * - the React Native template: JSON bodies, ids echoed as the strings GET my/chat rows carry, a PUT
 *   per unread message, `res.data.includes(listing_id)` on the toggle's array of numbers, messages
 *   told apart by `source_id === String(myId)`, polling stopped on `sender_delete === 1`;
 * - the Flutter app: form-urlencoded bodies, `PUT my/chat/message?con_id=..&message_id=..` with an
 *   empty JSON body, the first message sent twice, conversation objects parsed as ints, and any
 *   check reply containing `false` taken as "no conversation".
 * The React Native flow also runs against the current generation, to show what works there and
 * what does not (its chat list, and its poll's stop).
 */

import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { appCatalog, flutterDoubleSend, flutterFlow, reactNativeFlow } from '../helpers/chat-apps.js';
import { startTestSouk } from '../helpers/souk.js';

describe('the React Native template, classic replies', () => {
  it('signs in, favourites, checks, starts, lists, reads, marks read per message, answers, polls and stops on sender_delete === 1', async () => {
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' }, appCatalog());
    const r = await reactNativeFlow(t, 'classic');
    assert.deepEqual(r, { sellerListIsArray: true, pollStopsOnLeave: true, messagesInSentOrder: true, senderDelete: 1 });
  });
});

describe('the React Native template, current replies', () => {
  it('works but for the list shape (an object with data) and the poll stop (sender_delete is a boolean)', async () => {
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'current' }, appCatalog());
    const r = await reactNativeFlow(t, 'current');
    // What works: sign-in, the toggle, check's false, the start, string ids echoed into every
    // request, the PUT per message, the answer, the rows' string source_id and int unread_count.
    // What does not: the list is {data, pagination}, not an array; messages come newest first; and
    // sender_delete is true, never 1, so the template would poll a left conversation forever.
    assert.deepEqual(r, { sellerListIsArray: false, pollStopsOnLeave: false, messagesInSentOrder: false, senderDelete: true });
  });
});

describe('the Flutter app, classic replies', () => {
  it('toggles with a form, checks, sends its first message twice, marks read with PUT ?con_id&message_id and an empty JSON body', async () => {
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' }, appCatalog());
    await flutterFlow(t);
  });

  it('sends its first message twice without a temp_id: one conversation, both messages in it', async () => {
    const t = await startTestSouk({ CHAT_REPLY_FORMAT: 'classic' }, appCatalog());
    await flutterDoubleSend(t);
  });
});
