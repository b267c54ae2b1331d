/**
 * What the chat's use cases share (conversation.ts, message.ts, list.ts): what a message may hold
 * (D6), who takes part in a conversation (N3), and how the reads page.
 */
import type {
  Attachment,
  Conversation,
  FirstMessage,
  LastMessage,
  Listing,
  MessageType,
  NewMessage,
  Offer,
  Side,
  UploadedAttachment,
  User,
} from '../model.js';
import { isPublicAddress, namesStoredFile } from '../file-address.js';
import { attachmentsOf, hasFiles, typeWithFiles } from '../files/message-files.js';
import type { Repositories } from '../ports.js';
import type { WordScreen } from '../safety/words.js';

export interface StartConversationInput {
  listingId: number;
  text: string;
  files: Attachment[];
  /** Files uploaded with the message (domain/files/), already stored. */
  uploads?: UploadedAttachment[];
  /**
   * Whether files were uploaded with the message, read or not: a retry's are not read (its message,
   * stored already, has its own), nor are they before the message is known to be taken. They count
   * as files for the text's rules.
   */
  uploadsSent?: boolean;
  /** The client's id for this message; a retry with the same one stores nothing new. */
  tempId: string | null;
  /** A start by an offer (domain/chat/offer.ts): the message is of type `offer` and holds it. */
  offer?: Offer;
}

export interface ChatLimits {
  textMaxLength: number;
  maxFiles: number;
  /** The addresses Souk's stored files are served at (FILES_URL, the bucket's): a named file there is refused. */
  filesAddresses?: readonly string[];
  /** The `bad_words` screen in force, asked per message, for its files' names (safety/words.ts); absent: none. */
  wordScreen?: () => WordScreen;
}

export type StartConversationError =
  | 'text_required'
  | 'text_too_long'
  | 'text_has_nul'
  | 'text_has_lone_surrogate'
  | 'too_many_files'
  | 'file_url_not_public'
  /** A named file (D6) under Souk's own files address: only an upload may carry one. */
  | 'file_url_stored_here'
  | 'file_text_not_plain'
  | 'listing_not_found'
  | 'own_listing'
  /** The caller, or the other participant, is disabled or erased (domain/moderation.ts). */
  | 'user_closed'
  /** A block stands between the two users, or the caller blocked the listing (domain/privacy/common.ts). */
  | 'blocked';

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
  input: Pick<StartConversationInput, 'text' | 'files' | 'uploads' | 'uploadsSent'>,
  limits: ChatLimits,
): StartConversationError | null {
  if (input.files.length > limits.maxFiles) return 'too_many_files';
  if (!input.files.every((file) => isPublicAddress(file.url))) return 'file_url_not_public';
  if (limits.filesAddresses && input.files.some((file) => namesStoredFile(file.url, limits.filesAddresses!))) return 'file_url_stored_here';
  if (!input.files.every(isPlainFile)) return 'file_text_not_plain';
  if (input.text.trim() === '' && !hasFiles(input) && !input.uploadsSent) return 'text_required';
  if (input.text.length > limits.textMaxLength && characterCount(input.text) > limits.textMaxLength) return 'text_too_long';
  return plainTextProblem(input.text);
}

/**
 * Why a user's words cannot be stored verbatim on every database, if they cannot: the chat's text
 * and a report's reason alike.
 */
export function plainTextProblem(text: string): 'text_has_nul' | 'text_has_lone_surrogate' | null {
  // Plain text never holds U+0000, and PostgreSQL text cannot store it: refused alike on every database.
  if (text.includes('\u0000')) return 'text_has_nul';
  // A lone surrogate has no UTF-8 form: stored, it would come back as U+FFFD, not verbatim (D6).
  if (LONE_SURROGATE.test(text)) return 'text_has_lone_surrogate';
  return null;
}

export function messageType(input: Pick<StartConversationInput, 'text' | 'files' | 'uploads'>): MessageType {
  return typeWithFiles(input);
}

/** The message a caller's input makes in a conversation. */
export function newMessage(conId: number, sourceId: number, input: Omit<StartConversationInput, 'listingId'>, now: number): NewMessage {
  return { conId, ...firstMessage(sourceId, input, now) };
}

/** newMessage's fields but its conversation's: a start's message before its conversation is known. */
export function firstMessage(sourceId: number, input: Omit<StartConversationInput, 'listingId'>, now: number): FirstMessage {
  return {
    sourceId,
    text: input.text,
    type: input.offer ? 'offer' : messageType(input),
    attachments: attachmentsOf(input),
    tempId: input.tempId,
    createdAt: now,
    ...(input.offer && { offer: input.offer }),
  };
}

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

export interface Page {
  /** From 1. */
  page: number;
  perPage: number;
}

/** A page shorter than asked for is the last one, unless it is empty past the first (then it says nothing). */
export const endsTheList = (found: number, offset: number, perPage: number) => found < perPage && (found > 0 || offset === 0);

export async function participant(deps: ChatReadDeps, id: number): Promise<User> {
  const user = await deps.findUser(id);
  // conversations reference users, which are never deleted: a missing one is a broken database.
  if (!user) throw new Error(`user ${id} of a conversation does not exist`);
  return user;
}

/** The conversation and the caller's side in it, when the caller may write in it (N3). */
export async function openFor(
  repos: Repositories,
  conId: number,
  userId: number,
): Promise<{ conversation: Conversation; side: Side } | null> {
  const conversation = await repos.conversations.findById(conId);
  const side = conversation ? sideOf(conversation, userId) : null;
  return conversation && side ? { conversation, side } : null;
}

export const otherLeft = (c: Conversation, side: Side) => (side === 'sender' ? c.recipientDelete : c.senderDelete);
