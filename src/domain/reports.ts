/** A report as Souk keeps it (listing/report and my/chat/report): who reported what, why, and what they saw. */
import type { Message } from './model.js';

/** A listing (listing/report), a whole conversation, or one message of one (my/chat/report). */
export type ReportKind = 'listing' | 'conversation' | 'message';

export interface Report {
  id: number;
  reporterId: number;
  kind: ReportKind;
  listingId: number | null;
  conId: number | null;
  messageId: number | null;
  /** Whom it is about: the listing's owner, the conversation's other participant, the message's sender. */
  reportedUserId: number | null;
  /** The reporter's words (the listing report's `message`, the chat report's `reason`). */
  reason: string;
  /** The reported messages as they were when reported, oldest first; none for a listing. */
  messages: Message[];
  createdAt: number;
  /** When the operator closed it (`souk reports close`); null while open. */
  closedAt: number | null;
}

export type NewReport = Omit<Report, 'id' | 'closedAt'>;
