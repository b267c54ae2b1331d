/**
 * my/chat (docs/routes.md): a participant's conversations, and the buyer's check for an open
 * conversation about a listing (my/chat/check).
 */
import type { ConversationListRow, User } from '../model.js';
import { endsTheList, otherParticipant, participant, type ChatReadDeps, type ConversationView, type Page } from './common.js';
import { readOpen, type ConversationRead, type MessagePaging } from './conversation.js';

export interface ConversationListItem extends ConversationView {
  /** The participant who is not the reader. */
  other: User;
}

export interface ConversationsPage extends Page {
  items: ConversationListItem[];
  total: number;
}

async function listItem(deps: ChatReadDeps, row: ConversationListRow, readerId: number): Promise<ConversationListItem> {
  const c = row.conversation;
  const [sender, recipient] = await Promise.all([participant(deps, c.senderId), participant(deps, c.recipientId)]);
  const other = c.senderId === readerId ? recipient : sender;
  return { conversation: c, listing: row.listing, sender, recipient, lastMessage: row.lastMessage, unreadCount: row.unreadCount, other };
}

/**
 * One page of the conversations the reader takes part in and has not left, latest message first.
 * `listedOnly` leaves out those whose listing was removed.
 */
export async function listConversations(
  deps: ChatReadDeps,
  readerId: number,
  { page, perPage }: Page,
  listedOnly: boolean,
): Promise<ConversationsPage> {
  const offset = (page - 1) * perPage;
  const rows = Number.isSafeInteger(offset) ? await deps.repos.conversations.listFor(readerId, offset, perPage, listedOnly) : [];
  const total = endsTheList(rows.length, offset, perPage)
    ? offset + rows.length
    : await deps.repos.conversations.countFor(readerId, listedOnly);
  const items = await Promise.all(rows.map((row) => listItem(deps, row, readerId)));
  return { items, total, page, perPage };
}

export type CheckConversationResult = { ok: true; value: ConversationRead | null } | { ok: false; error: 'forbidden' };

/**
 * The buyer's open conversation about a listing, if any (null when none). The owner is refused:
 * they may have many buyers for one listing, and guessing one would answer the wrong person.
 */
export async function checkConversation(
  deps: ChatReadDeps,
  readerId: number,
  listingId: number,
  paging: MessagePaging,
): Promise<CheckConversationResult> {
  const listing = await deps.repos.listings.findById(listingId);
  if (!listing || listing.status === 'trash' || listing.ownerId === readerId) return { ok: false, error: 'forbidden' };
  const owner = await deps.findUser(listing.ownerId);
  if (!owner || owner.disabled) return { ok: false, error: 'forbidden' };
  const conversation = await deps.repos.conversations.findOpen(listing.id, readerId, listing.ownerId);
  if (!conversation) return { ok: true, value: null };
  // The listing just read is the conversation's: only the unread count is left to read.
  const unreadCount = await deps.repos.conversations.unreadFrom(conversation.id, otherParticipant(conversation, readerId));
  return { ok: true, value: await readOpen(deps, { conversation, listing, unreadCount }, paging) };
}
