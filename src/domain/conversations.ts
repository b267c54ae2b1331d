/**
 * Reading the chat (docs/routes.md): a participant's conversations, one conversation with its
 * messages, and the buyer's check for an open conversation about a listing.
 */
import type { Conversation, ConversationListRow, LastMessage, Listing, Message, Side, User } from './model.js';
import type { ConversationForReader, Repositories } from './ports.js';

export interface ChatReadDeps {
  /** Repositories outside any transaction: reads see what has committed. */
  repos: Repositories;
  /** A user's profile, cached until the catalog changes. */
  findUser: (id: number) => Promise<User | undefined>;
}

/** Which side the user is on, when they take part in the conversation and have not left it (N3). */
export function sideOf(conversation: Conversation, userId: number): Side | null {
  if (conversation.senderId === userId && !conversation.senderDelete) return 'sender';
  if (conversation.recipientId === userId && !conversation.recipientDelete) return 'recipient';
  return null;
}

export const otherParticipant = (c: Conversation, userId: number) => (c.senderId === userId ? c.recipientId : c.senderId);

/** A conversation with its participants and listing, as the reader sees it. */
export interface ConversationView {
  conversation: Conversation;
  /** Undefined once the listing is removed (its conversations stay). */
  listing: Listing | undefined;
  sender: User;
  recipient: User;
  lastMessage: LastMessage | null;
  /** Messages from the other participant the reader has not read. */
  unreadCount: number;
}

export interface ConversationListItem extends ConversationView {
  /** The participant who is not the reader. */
  other: User;
}

export interface Page {
  /** From 1. */
  page: number;
  perPage: number;
}

export interface ConversationsPage extends Page {
  items: ConversationListItem[];
  total: number;
}

/** A page shorter than asked for is the last one, unless it is empty past the first (then it says nothing). */
const endsTheList = (found: number, offset: number, perPage: number) => found < perPage && (found > 0 || offset === 0);

async function participant(deps: ChatReadDeps, id: number): Promise<User> {
  const user = await deps.findUser(id);
  // conversations reference users, which are never deleted: a missing one is a broken database.
  if (!user) throw new Error(`user ${id} of a conversation does not exist`);
  return user;
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

export interface MessagePaging extends Page {
  /** Only messages with a larger id (0: all). */
  afterId: number;
}

export interface ConversationRead extends Page {
  view: ConversationView;
  /** Newest first. */
  messages: Message[];
  /** How many messages the paging goes through in all. */
  total: number;
}

export type ReadConversationResult = { ok: true; value: ConversationRead } | { ok: false; error: 'forbidden' };

async function lastMessageOf(repos: Repositories, c: Conversation, page: Message[]): Promise<LastMessage | null> {
  if (c.lastMessageId === null) return null;
  const m = page[0]?.id === c.lastMessageId ? page[0] : await repos.messages.findById(c.lastMessageId);
  return m ? { text: m.text, isRead: m.isRead, sourceId: m.sourceId, createdAt: m.createdAt } : null;
}

async function readOpen(deps: ChatReadDeps, read: ConversationForReader, paging: MessagePaging): Promise<ConversationRead> {
  const { repos } = deps;
  const { conversation: c, listing, unreadCount } = read;
  const offset = (paging.page - 1) * paging.perPage;
  const messages = Number.isSafeInteger(offset) ? await repos.messages.pageOf(c.id, paging.afterId, offset, paging.perPage) : [];
  const [total, sender, recipient, lastMessage] = await Promise.all([
    endsTheList(messages.length, offset, paging.perPage) ? offset + messages.length : repos.messages.countOf(c.id, paging.afterId),
    participant(deps, c.senderId),
    participant(deps, c.recipientId),
    lastMessageOf(repos, c, messages),
  ]);
  const view = { conversation: c, listing, sender, recipient, lastMessage, unreadCount };
  return { view, messages, total, page: paging.page, perPage: paging.perPage };
}

/** A conversation and a page of its messages, for a participant who has not left it (N3). Reading marks nothing read. */
export async function readConversation(
  deps: ChatReadDeps,
  readerId: number,
  conId: number,
  paging: MessagePaging,
): Promise<ReadConversationResult> {
  const read = await deps.repos.conversations.findForReader(conId, readerId);
  if (!read || sideOf(read.conversation, readerId) === null) return { ok: false, error: 'forbidden' };
  return { ok: true, value: await readOpen(deps, read, paging) };
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
