/** What the use cases need from storage. src/store implements it for SQLite and PostgreSQL. */
import type { Conversation, Listing, ListingRecord, ListingStatus, Message, NewMessage, User } from './model.js';

export interface UserRepository {
  findById(id: number): Promise<User | undefined>;
}

export interface ListingRepository {
  findById(id: number): Promise<Listing | undefined>;
  /** Just the status, for rules that need no more of the listing. */
  statusOf(id: number): Promise<ListingStatus | undefined>;
}

export interface FavouriteRepository {
  /**
   * Removes the listing from the user's favourites when it is there, else adds it (at `at`).
   * Returns the user's favourite listing ids after, oldest addition first.
   */
  toggle(userId: number, listingId: number, at: number): Promise<number[]>;
  /** The user's favourite listing ids, oldest addition first. */
  listIds(userId: number): Promise<number[]>;
}

export interface ConversationRepository {
  findOpen(listingId: number, senderId: number, recipientId: number): Promise<Conversation | undefined>;
  create(listingId: number, senderId: number, recipientId: number, at: number): Promise<Conversation>;
  findById(conId: number): Promise<Conversation | undefined>;
  /** Messages in the conversation sent by senderId that are still unread. */
  unreadFrom(conId: number, senderId: number): Promise<number>;
}

export interface MessageRepository {
  findByTempId(conId: number, sourceId: number, tempId: string): Promise<Message | undefined>;
  findById(id: number): Promise<Message | undefined>;
  /** Stores a message as its conversation's newest: the conversation's last message and update time become the message's. */
  append(message: NewMessage): Promise<Message>;
}

export interface Repositories {
  users: UserRepository;
  listings: ListingRepository;
  favourites: FavouriteRepository;
  conversations: ConversationRepository;
  messages: MessageRepository;
}

export interface UnitOfWork {
  /**
   * Runs fn in one database transaction: all of its writes land, or none. Given a `writer`, the
   * transaction first takes that user's write lock, held until it ends: one user's transactions
   * run one at a time.
   */
  transaction<T>(fn: (repos: Repositories) => Promise<T>, writer?: number): Promise<T>;
}

/** Admin writes: the catalog import and listing removal. */
export interface CatalogRepository {
  upsertUser(user: User): Promise<void>;
  upsertListing(listing: ListingRecord): Promise<void>;
  existingUserIds(ids: number[]): Promise<Set<number>>;
  /** Removes listings; they leave every favourite list, their conversations stay. Returns the ids removed. */
  deleteListings(ids: number[]): Promise<number[]>;
}

export interface CatalogUnitOfWork {
  catalogTransaction<T>(fn: (catalog: CatalogRepository) => Promise<T>): Promise<T>;
}

/**
 * Not a setting: a marker every catalog change (import, listing removal) sets anew, in the same
 * transaction. Servers poll it with the settings and drop the users they cached when it changes.
 */
export const CATALOG_VERSION = 'catalog_version';

/** The settings table: generated secrets and switches shared by every instance and the CLI. */
export interface SettingsRepository {
  all(): Promise<Record<string, string>>;
  /** Stores value unless the key already has one; concurrent first starts agree on one value. */
  setIfAbsent(key: string, value: string): Promise<void>;
  set(key: string, value: string): Promise<void>;
}
