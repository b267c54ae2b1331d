/** Chat: start a conversation about a listing with its first message (D6). */
import type { Attachment, Conversation, Listing, Message, MessageType, NewMessage, User } from './model.js';
import { recordNewMessage } from './chat-events.js';
import { isPublicAddress } from './file-address.js';
import type { Repositories, UnitOfWork } from './ports.js';

export interface StartConversationInput {
  listingId: number;
  text: string;
  files: Attachment[];
  /** The client's id for this message; a retry with the same one stores nothing new. */
  tempId: string | null;
}

/** Where a start reads and writes. */
export interface ChatStore {
  uow: UnitOfWork;
  /**
   * A user's profile: a cached copy (users change only through the catalog), or else the one
   * `load` reads, here inside the start's transaction.
   */
  findUser: (id: number, load: (id: number) => Promise<User | undefined>) => Promise<User | undefined>;
}

export interface ChatLimits {
  textMaxLength: number;
  maxFiles: number;
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

export type StartConversationError =
  | 'text_required'
  | 'text_too_long'
  | 'text_has_nul'
  | 'text_has_lone_surrogate'
  | 'too_many_files'
  | 'file_url_not_public'
  | 'file_text_not_plain'
  | 'listing_not_found'
  | 'own_listing';

export type StartConversationResult = { ok: true; value: StartedConversation } | { ok: false; error: StartConversationError };

/** Counts characters as people do (code points), not UTF-16 units. */
function characterCount(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/** Half of a UTF-16 surrogate pair, without its other half. */
export const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Plain text as every database stores it verbatim: no NUL (PostgreSQL refuses it) and no lone surrogate (no UTF-8 form). */
const isPlain = (text: string | undefined) => text === undefined || (!text.includes('\u0000') && !LONE_SURROGATE.test(text));

const isPlainFile = (file: Attachment) => isPlain(file.url) && isPlain(file.name) && isPlain(file.mime_type);

export function checkMessageInput(
  input: Pick<StartConversationInput, 'text' | 'files'>,
  limits: ChatLimits,
): StartConversationError | null {
  if (input.files.length > limits.maxFiles) return 'too_many_files';
  if (!input.files.every((file) => isPublicAddress(file.url))) return 'file_url_not_public';
  if (!input.files.every(isPlainFile)) return 'file_text_not_plain';
  if (input.text.trim() === '' && input.files.length === 0) return 'text_required';
  if (input.text.length > limits.textMaxLength && characterCount(input.text) > limits.textMaxLength) return 'text_too_long';
  // Plain text never holds U+0000, and PostgreSQL text cannot store it: refused alike on every database.
  if (input.text.includes('\u0000')) return 'text_has_nul';
  // A lone surrogate has no UTF-8 form: stored, it would come back as U+FFFD, not verbatim (D6).
  if (LONE_SURROGATE.test(input.text)) return 'text_has_lone_surrogate';
  return null;
}

export function messageType(input: Pick<StartConversationInput, 'text' | 'files'>): MessageType {
  return input.files.length > 0 && input.text.trim() === '' ? 'attachment' : 'text';
}

/** The message a caller's input makes in a conversation. */
export function newMessage(conId: number, sourceId: number, input: Omit<StartConversationInput, 'listingId'>, now: number): NewMessage {
  return {
    conId,
    sourceId,
    text: input.text,
    type: messageType(input),
    attachments: input.files.length > 0 ? input.files : null,
    tempId: input.tempId,
    createdAt: now,
  };
}

async function openConversation(repos: Repositories, listing: Listing, callerId: number, now: number) {
  const existing = await repos.conversations.findOpen(listing.id, callerId, listing.ownerId);
  if (existing) return { conversation: existing, created: false };
  return { conversation: await repos.conversations.create(listing.id, callerId, listing.ownerId, now), created: true };
}

async function appendMessage(
  repos: Repositories,
  opened: { conversation: Conversation; created: boolean },
  callerId: number,
  input: StartConversationInput,
  now: number,
) {
  const { conversation } = opened;
  // A conversation this request created holds no message yet: nothing this could be a retry of.
  if (input.tempId !== null && !opened.created) {
    const stored = await repos.messages.findByTempId(conversation.id, callerId, input.tempId);
    if (stored) return { message: stored, conversation, isRetry: true };
  }
  const message = await repos.messages.append(newMessage(conversation.id, callerId, input, now));
  return { message, conversation: { ...conversation, lastMessageId: message.id, updatedAt: now }, isRetry: false };
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

  // The caller as writer: one caller's starts run one at a time, so concurrent starts share one conversation.
  return uow.transaction(async (repos) => {
    const listing = await repos.listings.findById(input.listingId);
    if (!listing || listing.status === 'trash') return { ok: false, error: 'listing_not_found' } as const;
    if (listing.ownerId === caller.id) return { ok: false, error: 'own_listing' } as const;
    // A disabled user is neither a sender nor a recipient: their listings answer as missing ones,
    // so nothing is written for them and their contact data never leaves in a reply.
    const recipient = await findUser(listing.ownerId, (id) => repos.users.findById(id));
    if (!recipient || recipient.disabled) return { ok: false, error: 'listing_not_found' } as const;

    const opened = await openConversation(repos, listing, caller.id, now);
    const { message, conversation, isRetry } = await appendMessage(repos, opened, caller.id, input, now);
    const lastMessage =
      isRetry && conversation.lastMessageId !== null && conversation.lastMessageId !== message.id
        ? ((await repos.messages.findById(conversation.lastMessageId)) ?? message)
        : message;
    // A conversation has two participants: what the caller has not read, the other one sent.
    // One this request created holds only the caller's message: nothing to count.
    const otherParty = conversation.senderId === caller.id ? conversation.recipientId : conversation.senderId;
    const unreadCount = opened.created ? 0 : await repos.conversations.unreadFrom(conversation.id, otherParty);
    const value = { conversation, listing, sender: caller, recipient, message, lastMessage, unreadCount };
    // A retry stored nothing: it caused nothing. The recipient sees the new conversation with its
    // one unread message, then the message itself, once (the plugin sends the first one twice).
    if (!isRetry && repos.events) {
      if (opened.created) await repos.events.record(otherParty, { type: 'conversation.new', started: { ...value, unreadCount: 1 } }, now);
      await recordNewMessage(repos, message, otherParty, now);
    }
    return { ok: true, value } as const;
  }, caller.id);
}
