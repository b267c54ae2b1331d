/**
 * my/chat/conversation (docs/routes.md): start a conversation about a listing with its first
 * message (D6), read one with a page of its messages, leave one.
 */
import type { Conversation, LastMessage, Listing, Message, User } from '../model.js';
import type { ConversationForReader, OpenedConversation, Repositories, UnitOfWork } from '../ports.js';
import {
  checkMessageInput,
  endsTheList,
  firstMessage,
  newMessage,
  openFor,
  otherLeft,
  otherParticipant,
  participant,
  sideOf,
  type ChatLimits,
  type ChatReadDeps,
  type ConversationView,
  type Page,
  type StartConversationError,
  type StartConversationInput,
} from './common.js';
import { closedParticipant, closedSide } from '../moderation.js';
import { appendMessage, firstAppended, recordNewMessage } from './events.js';
import { blockedEitherWay, startBlocked } from '../privacy/common.js';
import { screenFileNames } from '../safety/words.js';

/** Where a start reads and writes. */
export interface ChatStore {
  uow: UnitOfWork;
  /**
   * A user's profile: a cached copy (users change only through the catalog), or else the one
   * `load` reads, here inside the start's transaction.
   */
  findUser: (id: number, load: (id: number) => Promise<User | undefined>) => Promise<User | undefined>;
}

export interface StartedConversation {
  conversation: Conversation;
  listing: Listing;
  sender: User;
  recipient: User;
  message: Message;
  lastMessage: Message;
  unreadCount: number;
}

/** `created`: what this request stored (a retry stores nothing, a start in an open conversation only its message). */
export type StartConversationResult =
  | { ok: true; value: StartedConversation; created: { conversation: boolean; message: boolean } }
  | { ok: false; error: StartConversationError };

/** The open conversation about the listing, else a new one (with the caller's message where the store writes both at once). */
async function openConversation(
  repos: Repositories,
  listing: Listing,
  callerId: number,
  input: StartConversationInput,
  now: number,
): Promise<OpenedConversation> {
  const { conversations } = repos;
  if (conversations.openOrCreate)
    return conversations.openOrCreate(listing.id, callerId, listing.ownerId, now, firstMessage(callerId, input, now));
  const existing = await conversations.findOpen(listing.id, callerId, listing.ownerId);
  if (existing) return { conversation: existing, created: false };
  return { conversation: await conversations.create(listing.id, callerId, listing.ownerId, now), created: true };
}

/**
 * What the start asks once its conversation is open: the message a retry of it stored (D6), and
 * what the caller has not read there. A conversation has two participants: what the caller has not
 * read, the other one sent, and the caller's message leaves that count as it is. One this request
 * created holds only the caller's message: no retry's, nothing to count. Asked together, unless
 * the store gave both with the conversation.
 */
async function afterOpening(
  repos: Repositories,
  opened: OpenedConversation,
  callerId: number,
  otherParty: number,
  tempId: string | null,
): Promise<[stored: Message | undefined, unreadCount: number]> {
  if (opened.created) return [undefined, 0];
  if (opened.unreadCount !== undefined) return [opened.retried ?? undefined, opened.unreadCount];
  const { id } = opened.conversation;
  return Promise.all([
    tempId === null ? undefined : repos.messages.findByTempId(id, callerId, tempId),
    repos.conversations.unreadFrom(id, otherParty),
  ]);
}

/** The caller's message, appended unless `stored` is its retry's (appendMessage: with its reader's unread count). */
async function appendUnlessStored(
  repos: Repositories,
  opened: OpenedConversation,
  stored: Message | undefined,
  callerId: number,
  otherParty: number,
  input: StartConversationInput,
  now: number,
) {
  const { conversation } = opened;
  if (stored) return { message: stored, conversation, appended: undefined };
  const message = newMessage(conversation.id, callerId, input, now);
  // In a conversation this request created (where the store may have written it already), the
  // message is its reader's one unread: nothing to count.
  const appended = opened.created
    ? firstAppended(repos, opened.appended ?? (await repos.messages.append(message)))
    : await appendMessage(repos, message, otherParty);
  return { message: appended.message, conversation: { ...conversation, lastMessageId: appended.message.id, updatedAt: now }, appended };
}

type Startable = { ok: true; listing: Listing; recipient: User } | { ok: false; error: StartConversationError };

/**
 * The rules of a start about the listing, in their order, on `repos` (the start's transaction, or
 * committed reads before it): the listing and its owner, or why not.
 */
async function startable(repos: Repositories, findUser: ChatStore['findUser'], caller: User, listingId: number): Promise<Startable> {
  // Asked together (a database may answer them in one round trip): the listing, and where the
  // database can without knowing the owner, who of the caller and the owner is closed.
  const [listing, closedWithOwner] = await Promise.all([
    repos.listings.findById(listingId),
    repos.moderation?.closedWithOwnerOf?.(listingId, caller.id),
  ]);
  if (!listing || listing.status === 'trash') return { ok: false, error: 'listing_not_found' };
  if (listing.ownerId === caller.id) return { ok: false, error: 'own_listing' };
  // A disabled user is neither a sender nor a recipient: their listings answer as missing ones,
  // so nothing is written for them and their contact data never leaves in a reply.
  // Reads that need nothing but the listing, asked together, their answers taken in the order of the rules.
  const [recipient, closed, blocked] = await Promise.all([
    findUser(listing.ownerId, (id) => repos.users.findById(id)),
    closedWithOwner ? closedSide(closedWithOwner, caller.id) : closedParticipant(repos, caller.id, listing.ownerId),
    startBlocked(repos, caller.id, listing),
  ]);
  if (!recipient || recipient.disabled) return { ok: false, error: 'listing_not_found' };
  if (closed) return { ok: false, error: closed === 'reader' ? 'listing_not_found' : 'user_closed' };
  if (blocked) return { ok: false, error: 'blocked' };
  return { ok: true, listing, recipient };
}

export async function startConversation(
  { uow, findUser }: ChatStore,
  caller: User,
  input: StartConversationInput,
  limits: ChatLimits,
  now: number = Date.now(),
): Promise<StartConversationResult> {
  const invalid = checkMessageInput(input, limits);
  if (invalid) return { ok: false, error: invalid };
  input = screenFileNames(limits.wordScreen?.(), input);

  // The caller as writer: one caller's starts run one at a time, so concurrent starts share one conversation.
  return uow.transaction(async (repos) => {
    const checked = await startable(repos, findUser, caller, input.listingId);
    if (!checked.ok) return checked;
    const { listing, recipient } = checked;

    const opened = await openConversation(repos, listing, caller.id, input, now);
    const otherParty = otherParticipant(opened.conversation, caller.id);
    const [stored, unreadCount] = await afterOpening(repos, opened, caller.id, otherParty, input.tempId);
    const { message, conversation, appended } = await appendUnlessStored(repos, opened, stored, caller.id, otherParty, input, now);
    const isRetry = appended === undefined;
    const lastMessage =
      isRetry && conversation.lastMessageId !== null && conversation.lastMessageId !== message.id
        ? ((await repos.messages.findById(conversation.lastMessageId)) ?? message)
        : message;
    const value = { conversation, listing, sender: caller, recipient, message, lastMessage, unreadCount };
    // A retry stored nothing: it caused nothing. The recipient sees the new conversation with its
    // one unread message, then the message itself, once (the plugin sends the first one twice).
    if (appended && repos.events) {
      if (opened.created) await repos.events.record(otherParty, { type: 'conversation.new', started: { ...value, unreadCount: 1 } }, now);
      await recordNewMessage(repos, appended, otherParty, now);
    }
    return { ok: true, value, created: { conversation: opened.created && !isRetry, message: !isRetry } } as const;
  }, caller.id);
}

/** `retry`: the temp_id names a message stored already in the open conversation, which the start will return. */
export type MayStartResult = { ok: true; retry: boolean } | { ok: false; error: StartConversationError };

/**
 * Whether startConversation would take the message, asked before its costly part (its uploaded
 * files, which are to come) is read: the same rules, on committed reads (`repos`). startConversation
 * applies them again in its transaction.
 */
export async function mayStart(
  { repos, findUser }: { repos: Repositories; findUser: ChatStore['findUser'] },
  caller: User,
  input: Omit<StartConversationInput, 'uploads' | 'uploadsSent'>,
  limits: ChatLimits,
): Promise<MayStartResult> {
  const invalid = checkMessageInput({ ...input, uploadsSent: true }, limits);
  if (invalid) return { ok: false, error: invalid };
  const checked = await startable(repos, findUser, caller, input.listingId);
  if (!checked.ok) return checked;
  if (input.tempId === null) return { ok: true, retry: false };
  const open = await repos.conversations.findOpen(checked.listing.id, caller.id, checked.listing.ownerId);
  const stored = open ? await repos.messages.findByTempId(open.id, caller.id, input.tempId) : undefined;
  return { ok: true, retry: stored !== undefined };
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

export async function readOpen(deps: ChatReadDeps, read: ConversationForReader, paging: MessagePaging): Promise<ConversationRead> {
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

export type LeaveResult = { ok: true } | { ok: false; error: 'forbidden' };

/** The caller leaves the conversation: it leaves their list; the other participant still sees it. */
export async function leaveConversation(uow: UnitOfWork, userId: number, conId: number, now: number = Date.now()): Promise<LeaveResult> {
  return uow.transaction(async (repos): Promise<LeaveResult> => {
    const open = await openFor(repos, conId, userId);
    if (!open) return { ok: false, error: 'forbidden' };
    await repos.conversations.leave(conId, open.side);
    // The other participant, unless they left first (they can no longer answer) or a block stands between them.
    const other = otherParticipant(open.conversation, userId);
    if (!otherLeft(open.conversation, open.side) && !(await blockedEitherWay(repos, userId, other))) {
      await repos.events?.record(other, { type: 'conversation.left', conversationId: conId, userId }, now);
    }
    return { ok: true };
  }, userId);
}
