/**
 * What the console shows (docs/console.md), read through the operator's ports: a report in its
 * context, a user's page, and what a role may see of a message. No HTML here: the pages render it.
 */
import { REASON_MAX_LENGTH } from '../audit.js';
import { plainTextProblem } from '../chat/common.js';
import type { Conversation, ConversationListRow, Listing, Message, User } from '../model.js';
import { audited, type Change, type OperatorDeps } from '../operator/context.js';
import type { Report } from '../reports.js';
import { may, type StaffRole } from './staff.js';

/** Messages shown on each side of a reported one. */
export const CONTEXT_MESSAGES = 5;

export interface ReportInContext {
  report: Report;
  reporter: User | undefined;
  reported: User | undefined;
  listing: Listing | undefined;
  /** The reported message's conversation as it is now, oldest first: a few before it, it, a few after. */
  around: Message[];
}

export async function reportInContext(deps: Pick<OperatorDeps, 'reports' | 'repos'>, id: number): Promise<ReportInContext | undefined> {
  const report = await deps.reports.find(id);
  if (!report) return undefined;
  const { users, listings, messages } = deps.repos;
  const [reporter, reported, listing] = await Promise.all([
    users.findById(report.reporterId),
    report.reportedUserId === null ? undefined : users.findById(report.reportedUserId),
    report.listingId === null ? undefined : listings.findById(report.listingId),
  ]);
  let around: Message[] = [];
  const anchor = report.messageId ?? report.messages.at(-1)?.id ?? null;
  if (report.conId !== null && anchor === null) {
    // A whole conversation reported: its latest messages.
    around = (await messages.pageOf(report.conId, 0, 0, 2 * CONTEXT_MESSAGES + 1)).reverse();
  } else if (report.conId !== null && anchor !== null) {
    // pageOf pages newest first through the messages above an id: those after the anchor are the
    // last page above it, those before it the page that follows the anchor and what came after.
    const after = await messages.countOf(report.conId, anchor);
    const fromAnchor = await messages.countOf(report.conId, anchor - 1);
    const [later, earlier] = await Promise.all([
      messages.pageOf(report.conId, anchor, Math.max(0, after - CONTEXT_MESSAGES), CONTEXT_MESSAGES),
      messages.pageOf(report.conId, 0, Math.max(0, fromAnchor - 1), CONTEXT_MESSAGES + 1),
    ]);
    around = [...later, ...earlier].sort((a, b) => a.id - b.id);
  }
  return { report, reporter, reported, listing, around };
}

/** A message's text as the role may see it: a viewer sees that there was one, not what it said. */
export const shownText = (role: StaffRole, text: string): string | null => (may(role, 'read_bodies') ? text : null);

export interface UserPage {
  user: User;
  /** The conversations they take part in and have not left. */
  conversations: number;
  reportsMade: Report[];
  /** The latest reports about them (REPORTS_AGAINST), newest first. */
  reportsAgainst: Report[];
  blockedUserIds: number[];
  blockedListingIds: number[];
}

/** Reports against a user shown on their page: the latest. */
export const REPORTS_AGAINST = 50;

export async function userPage(deps: Pick<OperatorDeps, 'reports' | 'repos'>, id: number): Promise<UserPage | undefined> {
  const user = await deps.repos.users.findById(id);
  if (!user) return undefined;
  const [conversations, reportsMade, reportsAgainst, blockedUserIds, blockedListingIds] = await Promise.all([
    deps.repos.conversations.countFor(id, false),
    deps.reports.madeBy(id),
    deps.reports.against(id, REPORTS_AGAINST),
    deps.repos.blocks.blockedUserIds(id),
    deps.repos.blocks.blockedListingIds(id),
  ]);
  return { user, conversations, reportsMade, reportsAgainst, blockedUserIds, blockedListingIds };
}

/** A staff member's reason for an action: required, plain text, at most REASON_MAX_LENGTH. */
export function checkedReason(raw: string): { ok: true; reason: string } | { ok: false; problem: string } {
  const reason = raw.trim();
  if (reason === '') return { ok: false, problem: 'reason is required' };
  if (reason.length > REASON_MAX_LENGTH) return { ok: false, problem: `reason must be at most ${REASON_MAX_LENGTH} characters` };
  if (plainTextProblem(reason)) return { ok: false, problem: 'reason must be plain text (no NUL, no lone surrogate)' };
  return { ok: true, reason };
}

/** Conversations shown a page at a time. */
export const CONVERSATIONS_PAGE = 50;

/** The user's conversations (those they have not left), latest message first. */
export function conversationsOf(deps: Pick<OperatorDeps, 'repos'>, userId: number, offset: number): Promise<ConversationListRow[]> {
  return deps.repos.conversations.listFor(userId, offset, CONVERSATIONS_PAGE, false);
}

export interface ConversationPage {
  conversation: Conversation;
  sender: User | undefined;
  recipient: User | undefined;
  listing: Listing | undefined;
}

/** A conversation's participants and listing: what may be seen without reading its messages. */
export async function conversationPage(deps: Pick<OperatorDeps, 'repos'>, conId: number): Promise<ConversationPage | undefined> {
  const conversation = await deps.repos.conversations.findById(conId);
  if (!conversation) return undefined;
  const [sender, recipient, listing] = await Promise.all([
    deps.repos.users.findById(conversation.senderId),
    deps.repos.users.findById(conversation.recipientId),
    deps.repos.listings.findById(conversation.listingId),
  ]);
  return { conversation, sender, recipient, listing };
}

/** Messages read at once: the latest. */
export const READ_MESSAGES = 100;

/**
 * A staff member reads a conversation's messages: staff reading private messages is itself
 * recorded, with the reason given. The latest READ_MESSAGES, oldest first.
 */
export async function readConversation(deps: OperatorDeps, change: Change, conId: number): Promise<Message[] | undefined> {
  const conversation = await deps.repos.conversations.findById(conId);
  if (!conversation) return undefined;
  await audited(deps, change, { action: 'conversation.read', targetKind: 'conversation', targetId: conId });
  return (await deps.repos.messages.pageOf(conId, 0, 0, READ_MESSAGES)).reverse();
}
