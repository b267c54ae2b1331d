/**
 * my/chat/report (Souk's own): a participant reports a conversation, or one message in it. The
 * report keeps a copy of the messages as they were, so that a later deletion or erasure of the
 * messages leaves what was reported intact.
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

export type ReportConversationResult = { ok: true } | { ok: false; error: 'forbidden' | 'message_not_found' };

export async function reportConversation(
  uow: UnitOfWork,
  reporterId: number,
  input: ReportConversationInput,
  now: number = Date.now(),
): Promise<ReportConversationResult> {
  return uow.transaction(async (repos): Promise<ReportConversationResult> => {
    const open = await openFor(repos, input.conId, reporterId);
    if (!open) return { ok: false, error: 'forbidden' };
    let messages: Message[];
    let reportedUserId: number;
    if (input.messageId !== null) {
      const message = await repos.messages.findById(input.messageId);
      if (!message || message.conId !== input.conId) return { ok: false, error: 'message_not_found' };
      messages = [message];
      reportedUserId = message.sourceId;
    } else {
      messages = (await repos.messages.pageOf(input.conId, 0, 0, REPORTED_MESSAGES)).reverse();
      reportedUserId = otherParticipant(open.conversation, reporterId);
    }
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
    return { ok: true };
  }, reporterId);
}
