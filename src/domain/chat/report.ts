/**
 * my/chat/report (Souk's own): a participant reports a conversation, or one message in it. The
 * report keeps a copy of the messages as they were, so that a later deletion or erasure of the
 * messages leaves what was reported intact. A reporter has one open report per conversation.
 */
import type { Message } from '../model.js';
import type { UnitOfWork } from '../ports.js';
import { openFor, otherParticipant } from './common.js';

/** A conversation's report keeps its latest messages, at most this many: enough to judge it, bounded whatever its length. */
export const REPORTED_MESSAGES = 50;

export interface ReportConversationInput {
  conId: number;
  /** One message of the conversation; null reports the conversation. */
  messageId: number | null;
  reason: string;
}

/** `stored`: false for a repeat while the reporter's report about the conversation is open, which stores nothing. */
export type ReportConversationResult = { ok: true; stored: boolean } | { ok: false; error: 'forbidden' | 'message_not_found' };

export async function reportConversation(
  uow: UnitOfWork,
  reporterId: number,
  input: ReportConversationInput,
  now: number = Date.now(),
): Promise<ReportConversationResult> {
  return uow.transaction(async (repos): Promise<ReportConversationResult> => {
    const open = await openFor(repos, input.conId, reporterId);
    if (!open) return { ok: false, error: 'forbidden' };
    const message = input.messageId === null ? undefined : await repos.messages.findById(input.messageId);
    if (input.messageId !== null && (!message || message.conId !== input.conId)) return { ok: false, error: 'message_not_found' };
    // One open report per reporter and conversation, whatever it reports of it: the operator has
    // the conversation already; a repeat is answered alike and stores nothing.
    if (await repos.reports.hasOpen(reporterId, { conId: input.conId })) return { ok: true, stored: false };
    const messages: Message[] = message ? [message] : (await repos.messages.pageOf(input.conId, 0, 0, REPORTED_MESSAGES)).reverse();
    const reportedUserId = message ? message.sourceId : otherParticipant(open.conversation, reporterId);
    const report = await repos.reports.add({
      reporterId,
      kind: input.messageId === null ? 'conversation' : 'message',
      listingId: open.conversation.listingId,
      conId: input.conId,
      messageId: input.messageId,
      reportedUserId,
      reason: input.reason,
      messages,
      createdAt: now,
    });
    await repos.events?.record(reporterId, { type: 'report.created', report }, now);
    return { ok: true, stored: true };
  }, reporterId);
}
