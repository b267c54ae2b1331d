/** What the use cases need from storage. src/store implements it, once per database. */
import type { AuditRecord } from './audit.js';
import type { MarketplaceSettings } from './config.js';
import type { DomainEvent, EventType, LoggedEvent } from './events.js';
import type {
  Conversation,
  ConversationListRow,
  FirstMessage,
  Listing,
  ListingRecord,
  Message,
  NewMessage,
  OfferStatus,
  ShownListing,
  Side,
  User,
  UserRecord,
} from './model.js';
import type { ModerationRepository } from './moderation.js';
import type { NewReport, Report } from './reports.js';

export interface UserRepository {
  findById(id: number): Promise<User | undefined>;
}

export interface ListingRepository {
  findById(id: number): Promise<Listing | undefined>;
}

export interface FavouriteRepository {
  /**
   * Removes the listing from the user's favourites when it is there, else adds it (at `at`).
   * Returns the user's favourite listing ids after, oldest addition first; or undefined, having
   * changed nothing, when the listing cannot be favourited (canBeFavourited). One call, so that a
   * database can check the listing in the statement that toggles.
   */
  toggle(userId: number, listingId: number, at: number): Promise<number[] | undefined>;
  /** The user's favourite listing ids, oldest addition first. */
  listIds(userId: number): Promise<number[]>;
}

/**
 * The favourites list (GET my/favourites): the favourites whose listing is published, most
 * recently added first (added_at, then insertion order, both descending). A read of its own,
 * apart from the toggle's repositories: the toggle's path never reads a listing's details.
 */
export interface FavouriteListRepository {
  /** The shown favourites from `offset` on, at most `limit` of them. */
  shownPage(userId: number, offset: number, limit: number): Promise<ShownListing[]>;
  /** How many favourites are shown in all. */
  countShown(userId: number): Promise<number>;
}

/** A conversation as a reader sees it: ConversationRepository.findForReader. */
export interface ConversationForReader {
  conversation: Conversation;
  /** Undefined once the listing is removed (its conversations stay). */
  listing: Listing | undefined;
  /** Messages from the participant who is not the reader, still unread (unreadFrom's count). */
  unreadCount: number;
}

/** A start's conversation: found open or created, with what the store could give along with it. */
export interface OpenedConversation {
  conversation: Conversation;
  created: boolean;
  /** Created: the start's message, when the store wrote it with the conversation. */
  appended?: Message;
  /** Found open, when the store asked along: the message a retry of the start stored there (null: none). */
  retried?: Message | null;
  /** Found open, when the store asked along: the messages of the other participant the caller has not read. */
  unreadCount?: number;
}

export interface ConversationRepository {
  findOpen(listingId: number, senderId: number, recipientId: number): Promise<Conversation | undefined>;
  create(listingId: number, senderId: number, recipientId: number, at: number): Promise<Conversation>;
  /**
   * What findOpen then create (when none is open) give, in one statement: given by a store in
   * whose write transactions a statement is a round trip (PostgreSQL). A conversation it creates
   * holds `first` already, as its first and last message (`appended`): a start's, which it would
   * append next. Of an open one it also gives what the start asks next: the message `first`'s
   * tempId stored there (findByTempId) and the recipient's messages the sender has not read (unreadFrom).
   */
  openOrCreate?(listingId: number, senderId: number, recipientId: number, at: number, first: FirstMessage): Promise<OpenedConversation>;
  findById(conId: number): Promise<Conversation | undefined>;
  /**
   * The conversation with what `readerId` reads along with it, in one go (the hottest read): its
   * listing and the messages from the participant other than the reader still unread. Whether the
   * reader takes part is the caller's to check.
   */
  findForReader(conId: number, readerId: number): Promise<ConversationForReader | undefined>;
  /** Messages in the conversation sent by senderId that are still unread. */
  unreadFrom(conId: number, senderId: number): Promise<number>;
  /**
   * The conversations the user takes part in and has not left, latest message first (the last
   * message's id, then the conversation's, descending), from `offset` on, at most `limit`; each
   * with its listing.
   * `listedOnly` leaves out those whose listing was removed.
   */
  listFor(userId: number, offset: number, limit: number, listedOnly: boolean): Promise<ConversationListRow[]>;
  /** How many conversations listFor would list in all. */
  countFor(userId: number, listedOnly: boolean): Promise<number>;
  /** Marks the conversation left by the participant on `side`; the other one still sees it. */
  leave(conId: number, side: Side): Promise<void>;
}

export interface MessageRepository {
  findByTempId(conId: number, sourceId: number, tempId: string): Promise<Message | undefined>;
  findById(id: number): Promise<Message | undefined>;
  /** Stores a message as its conversation's newest: the conversation's last message and update time become the message's. */
  append(message: NewMessage): Promise<Message>;
  /** The conversation's messages with an id above `afterId`, newest first, from `offset` on, at most `limit`. */
  pageOf(conId: number, afterId: number, offset: number, limit: number): Promise<Message[]>;
  /** How many messages pageOf pages through. */
  countOf(conId: number, afterId: number): Promise<number>;
  /** Marks read the unread messages of `sourceId` in the conversation up to `upToId`; how many changed. */
  markRead(conId: number, sourceId: number, upToId: number): Promise<number>;
}

/**
 * Records what a change caused, in the change's transaction: in the user's event log (their
 * stream) and, when webhooks are configured, in the webhook outbox. Nothing leaves the database
 * here: the stream and the webhooks read what committed.
 */
export interface EventRecorder {
  /** `userId`: whose event it is (whose stream carries it). */
  record(userId: number, event: DomainEvent, at: number): Promise<void>;
  /**
   * Holds the user's log until the transaction ends. A read made after it sees what every other
   * unit of work that logs for the user has committed, and what it logs next follows their events:
   * so a count read after it is never logged before an older one. Absent where write transactions
   * run one at a time (SQLite).
   */
  hold?(userId: number): Promise<void>;
}

/** Reports (listing/report, my/chat/report), written in the unit of work with their webhook event. */
export interface ReportRepository {
  /**
   * Stores the report. Each reported message is kept once, as it was when first reported: a later
   * report naming it points at that copy (a report's copies are never a second store of the chat).
   */
  add(report: NewReport): Promise<Report>;
  /**
   * Whether the reporter has an open report about the listing (a listing's report) or the
   * conversation (of it or of a message in it). Read under the reporter's writer lock, so that two
   * reports at once cannot both find none.
   */
  hasOpen(reporterId: number, about: { listingId: number } | { conId: number }): Promise<boolean>;
  /** How many reports the listing has, as listingReported counts them, without counting one more. */
  listingReports(listingId: number): Promise<number>;
  /**
   * Counts one more report of the listing and returns how many it has, this one included: on a
   * WordPress site the post meta `_abuse_report_by_visitor` the plugin keeps, elsewhere the
   * listing's stored reports. Two reports at once count two.
   */
  listingReported(listingId: number): Promise<number>;
}

/** The operator's view of the reports (`souk reports`). */
export interface ReportAdmin {
  /** Newest first; only those not closed with `open`, only closed ones with `closed`; those with an id below `beforeId` (the next page). */
  list(filter: { open: boolean; closed?: boolean; beforeId?: number; limit: number }): Promise<Report[]>;
  /** One report, or undefined. */
  find(id: number): Promise<Report | undefined>;
  /** Closes an open report; what it found. With `audit`, its row is written in the same transaction when it closed. */
  close(id: number, at: number, audit?: AuditRecord): Promise<'closed' | 'already_closed' | 'not_found'>;
  /** The reports a user made, oldest first (their export). */
  madeBy(reporterId: number): Promise<Report[]>;
  /** The latest reports about a user (reported_user_id), newest first, at most `limit`. */
  against(reportedUserId: number, limit: number): Promise<Report[]>;
  /** Deletes the reports a user made (their erasure); how many. */
  forgetMadeBy(reporterId: number): Promise<number>;
}

/**
 * Blocks (docs/safety.md): who blocked whom, and which listings a user blocked. A block closes the
 * chat between two users both ways; the checks read the database, never a cache, so that every
 * instance sees a block as soon as it is answered.
 */
export interface BlockRepository {
  /**
   * Whether either user has blocked the other. In a unit of work with a writer, a block answered
   * before the writer's lock was taken is seen (the block locks both users' rows).
   */
  between(a: number, b: number): Promise<boolean>;
  /** Whether `userId` may not start a conversation about the listing: they blocked it, or a block stands between them and its owner. */
  barsStart(userId: number, ownerId: number, listingId: number): Promise<boolean>;
  /** The users `blockerId` blocked, in the order blocked. */
  blockedUserIds(blockerId: number): Promise<number[]>;
  /** The listings `userId` blocked, in the order blocked. */
  blockedListingIds(userId: number): Promise<number[]>;
  /**
   * Adds the block unless it is there. Takes both users' write locks first (in id order), as their
   * sends do: a message of either that has not committed by then waits, and one after sees the block.
   */
  blockUser(blockerId: number, blockedId: number, at: number): Promise<void>;
  /** Removes the block; false when there was none. */
  unblockUser(blockerId: number, blockedId: number): Promise<boolean>;
  /** Adds the listing to the user's blocked listings unless it is there. */
  blockListing(userId: number, listingId: number, at: number): Promise<void>;
  /** Removes it; false when it was not there. */
  unblockListing(userId: number, listingId: number): Promise<boolean>;
}

/**
 * Offers (domain/chat/offer.ts): messages of type `offer` whose status changes as they are
 * answered. Each database keeps them in its messages' `type` and `meta`.
 */
/** What an offer's bounds and text need of its listing, and how many offers its writer made lately (OfferRepository.terms). */
export interface OfferTerms {
  listing: Pick<Listing, 'title' | 'price' | 'status'> | undefined;
  made: number;
}

export interface OfferRepository {
  /** False where the chat's tables have no room for an offer (a WordPress site with the 2.x plugin's tables: no `meta`). */
  supported(): Promise<boolean>;
  /**
   * Holds the conversation's row until the transaction ends, before anything of it is read: one
   * conversation's offers are made and answered one at a time, and what is read after sees what
   * the one before committed. Nothing where write transactions run one at a time (SQLite).
   */
  lockConversation(conId: number): Promise<void>;
  /** lockConversation of the message's conversation, found by the same statement (nothing held when there is no such message). */
  lockConversationOf(messageId: number): Promise<void>;
  /** The conversation's offers still pending, oldest first. */
  pendingOf(conId: number): Promise<Message[]>;
  /** How many offers `sourceId` made in the conversation at or after `since` (epoch ms). */
  madeSince(conId: number, sourceId: number, since: number): Promise<number>;
  /**
   * What a new offer is checked against, in one read where the database allows: the listing's
   * terms (undefined: no such listing) and madeSince's count. Absent: the two are read apart.
   */
  terms?(conversation: Pick<Conversation, 'id' | 'listingId'>, sourceId: number, since: number): Promise<OfferTerms>;
  /**
   * Moves the offer to `status` when it is still as `offer` holds it (a conditional update): of
   * two answers at once, one changes it and the other finds it changed. Whether it changed.
   */
  settle(offer: Message, status: OfferStatus): Promise<boolean>;
}

/** One correction of a message's text by its sender (my/chat/message PATCH), as the edit history keeps it. */
export interface MessageEdit {
  messageId: number;
  conId: number;
  /** The sender, who made the edit. */
  sourceId: number;
  previousText: string;
  text: string;
  editedAt: number;
}

/**
 * A sender's corrections of their messages (domain/chat/message.ts, editMessage): the message's
 * text replaced, its time of edit in its `meta` where the table has one, and the previous text kept
 * in a table of Souk's own. A removal of the message (moderation's removeMessage) or an erasure of
 * its sender forgets its history.
 */
export interface MessageEditRepository {
  /**
   * Replaces the message's text and keeps its previous text; the message after. With `unreadOnly`,
   * only while it is still unread (a conditional update: a mark-read that commits first wins):
   * undefined when it was read meanwhile.
   */
  edit(message: Message, text: string, at: number, unreadOnly: boolean): Promise<Message | undefined>;
  /** The edits of the user's messages, oldest first (the export). */
  ofUser(userId: number): Promise<MessageEdit[]>;
}

export interface Repositories {
  users: UserRepository;
  listings: ListingRepository;
  favourites: FavouriteRepository;
  conversations: ConversationRepository;
  messages: MessageRepository;
  reports: ReportRepository;
  blocks: BlockRepository;
  /** Present in a unit of work's repositories (absent outside one): the use cases then record nothing. */
  events?: EventRecorder;
  /** Moderation's writes and locks (domain/moderation.ts), in a unit of work's repositories. */
  moderation?: ModerationRepository;
  /** Offers (domain/chat/offer.ts); absent where a store keeps none. */
  offers?: OfferRepository;
  /** A sender's corrections of their messages, with their history. */
  edits?: MessageEditRepository;
}

/** The users' event logs, read by the streams (src/events/). */
export interface EventLog {
  /** The user's events after `afterSeq`, oldest first, at most `limit`. */
  after(userId: number, afterSeq: number, limit: number): Promise<LoggedEvent[]>;
  /** The user's latest sequence number (0 before their first event), pruned events included. */
  lastSeq(userId: number): Promise<number>;
  /** Forgets the events recorded before `before` (epoch ms); how many. */
  prune(before: number): Promise<number>;
}

export type WebhookStatus = 'pending' | 'delivered' | 'failed';

/** One event for one webhook receiver, as the outbox holds it. */
export interface WebhookDelivery {
  id: number;
  /** The Standard Webhooks message id (`webhook-id`): the same for every receiver and attempt. */
  messageId: string;
  url: string;
  type: EventType;
  /** Whose event it is. */
  userId: number;
  /** The DomainEvent, JSON text. */
  payload: string;
  createdAt: number;
  /** Retries stop WEBHOOK_RETRY_FOR_S after this: createdAt, or when it was last sent again by hand. */
  windowFrom: number;
  status: WebhookStatus;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  deliveredAt: number | null;
}

/** The webhook outbox: written with the change (EventRecorder), read and updated by the delivery loop and the CLI. */
export interface WebhookOutbox {
  /**
   * Pending deliveries due by `now`, at most `limit`, each leased until `leaseUntil` (its next
   * attempt moves there) so that no other instance sends it meanwhile; a sender that dies
   * leaves it to be sent again once the lease has passed.
   */
  claimDue(now: number, leaseUntil: number, limit: number): Promise<WebhookDelivery[]>;
  delivered(id: number, now: number): Promise<void>;
  /** A failed attempt: retried at `retryAt`, or kept as failed when null. */
  attemptFailed(id: number, attempts: number, retryAt: number | null, error: string): Promise<void>;
  /** The deliveries, newest first: those of a status, or created at or after `since`, or with an id below `beforeId` (the next page). */
  list(filter: { status?: WebhookStatus; since?: number; beforeId?: number; limit: number }): Promise<WebhookDelivery[]>;
  /**
   * Sends the given failed deliveries again (all failed ones when `ids` is empty); how many. With
   * `audit`, its row is written in the same transaction when any was sent again.
   */
  retry(ids: number[], now: number, audit?: AuditRecord): Promise<number>;
  /** Sends again every delivery created at or after `since`, whatever its status; how many. */
  replay(since: number, now: number): Promise<number>;
  /** Deletes the delivered rows created before `before` (WEBHOOK_RETENTION_S); how many. */
  prune(before: number): Promise<number>;
}

/** A single-use ticket that opens a user's stream where no header can be sent (a browser's EventSource). */
export interface EventTicket {
  /** The SHA-256 digest of the ticket's text (the text itself is never stored). */
  digest: string;
  userId: number;
  /** The token the ticket was asked with: its stream ends when that token is revoked or expires. */
  tokenDigest: string;
  tokenExpiresAt: number;
  /** Epoch ms. */
  expiresAt: number;
}

export interface EventTicketRepository {
  issue(ticket: EventTicket): Promise<void>;
  /** The ticket, once: it is forgotten as it is taken; undefined when unknown or expired by `now`. */
  take(digest: string, now: number): Promise<EventTicket | undefined>;
  /** Forgets the tickets expired by `now`. */
  forgetExpired(now: number): Promise<number>;
}

/**
 * Tells this process which users' logs got new events, once committed: on SQLite from the
 * commit itself, on PostgreSQL through LISTEN/NOTIFY from any instance, on MySQL from this
 * process's commits and by polling the log for other instances' events. A signal may come for
 * nothing new (a rolled-back batch, an event already read): readers then find nothing.
 */
export interface EventSignals {
  /**
   * `onUsers`: users with new events. `onGap`: signals may have been lost (a reconnection):
   * every reader should look again. Returns the unsubscribe.
   */
  subscribe(onUsers: (userIds: number[]) => void, onGap: () => void): () => void;
  /**
   * Told when this process's first stream opens (true) and its last one closes (false): a store
   * that learns of other instances' events by polling (MySQL) polls only in between.
   */
  streaming?(open: boolean): void;
}

/**
 * Messages never stored (LiveEvent as JSON text), from this process to every instance on the
 * database: PostgreSQL's LISTEN/NOTIFY on the event signals' channel; elsewhere this process only.
 * Best effort: a message sent while an instance's listening connection is away is lost to it,
 * and `onGap` tells it so.
 */
export interface LiveChannel {
  publish(message: string): void;
  /** `onMessage`: a message another instance published (this process's own are not echoed). */
  subscribe(onMessage: (message: string) => void, onGap: () => void): () => void;
}

export interface UnitOfWork {
  /**
   * Runs fn in one database transaction: all of its writes land, or none.
   *
   * fn may run more than once: a store may run several requests' work in one transaction and, when
   * one of them fails, roll back and run each again alone (SQLite's group commit). So fn must have
   * no effect outside the database and must decide only from its input and what it reads; its
   * result is the one of the run that committed.
   *
   * Given a `writer`, one user's transactions with that writer run one at a time: on PostgreSQL the
   * transaction locks the user's row with its first statement, before it (FOR NO KEY UPDATE, across
   * instances); on SQLite every write transaction already holds the database's one write lock.
   *
   * What fn asks of its repositories without waiting in between runs in the order asked where a
   * use case relies on it: an unread count asked for with an append counts the new message.
   */
  transaction<T>(fn: (repos: Repositories) => Promise<T>, writer?: number): Promise<T>;
  /**
   * `transaction`, for fn that asks for one statement and, after its answer, records only events
   * of `types`. Where recording those leaves nothing in the database (no stream carries them, no
   * webhook is configured), a store may send the writer's lock and the statement as a transaction
   * of their own, in one message, with no COMMIT to wait for (PostgreSQL).
   */
  alone?<T>(types: readonly EventType[], fn: (repos: Repositories) => Promise<T>, writer?: number): Promise<T>;
}

/** Admin writes: the catalog import and listing removal. */
export interface CatalogRepository {
  /** Writes the user's profile, and their password hash when the record has one (else keeps the stored one). */
  upsertUser(user: UserRecord): Promise<void>;
  upsertListing(listing: ListingRecord): Promise<void>;
  /** The change's audit row, in this transaction: it commits with the change or not at all. */
  recordAudit(entry: AuditRecord): Promise<void>;
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

/**
 * Presentation settings that a store's own database holds: a WordPress site's options (site
 * address, listing permalink base, currency, time zone), read once at start. They take the place
 * of the SITE_URL, LISTING_URL_TEMPLATE, CURRENCY_*, PRICE_* and SITE_TIMEZONE settings, so that
 * replies are built as the site builds them.
 */
export interface SitePresentation {
  siteUrl: string;
  listingUrlTemplate: string;
  /** An IANA zone, or a fixed offset such as `+05:30` (WordPress's `gmt_offset`). */
  timeZone: string;
  price: {
    currencySymbol: string;
    position: 'left' | 'right' | 'left_space' | 'right_space';
    decimals: number;
    thousandsSeparator: string;
    decimalSeparator: string;
    /** A fraction of zeros is dropped (`350.00` shows `350`), as the plugin does by default. */
    trimZeros: boolean;
  };
}

/** A database connection pool's occupancy, for metrics. */
export interface PoolStats {
  total: number;
  idle: number;
  waiting: number;
}

/** How the database is doing: for the readiness probe, the metrics and the 503 answer. */
export interface StoreHealth {
  /** Whether the database answers, and whether every migration is applied. */
  readiness(): Promise<{ database: boolean; migrations: boolean }>;
  /** The connection pool's occupancy; undefined where there is no pool (SQLite's one connection). */
  poolStats(): PoolStats | undefined;
  /** True when err means the database is unavailable for now (answered 503), not a bug. */
  isUnavailable(err: unknown): boolean;
}

/** Sign-in's view of the users: who a login or e-mail names, and their password. */
export interface AccountRepository {
  /**
   * The user whose login, else whose e-mail, is `identifier` compared case-insensitively, with
   * their password hash ('' when they have none); disabled users too (sign-in refuses them).
   */
  findForSignIn(identifier: string): Promise<{ user: User; passwordHash: string } | undefined>;
  /** Replaces the user's password hash; false when there is no such user. */
  setPasswordHash(userId: number, passwordHash: string): Promise<boolean>;
}

/**
 * A token signed out before its expiry, named by its subject (whose user it is) and its digest;
 * or a mark: every token of the subject issued at or before `issuedAt` (auth/revoked-tokens.ts).
 */
export interface Revocation {
  subject: string;
  /** The token's (the SHA-256 of its jti), or the mark's (`<=` and its issue time). */
  digest: string;
  /** The token's `iat`, in seconds; a mark's bound. */
  issuedAt: number;
  /** When the token would have expired (epoch ms): after that it is refused anyway and forgotten. */
  expiresAt: number;
  /** When it was revoked (epoch ms), by the clock of the instance that revoked it. */
  revokedAt: number;
}

/** Revoked tokens, shared by every instance on the database. */
export interface RevocationRepository {
  /** Records a revocation; revoking a token twice keeps the first. */
  revoke(revocation: Revocation): Promise<void>;
  /** The subject's revocations whose token has not expired by `now` (epoch ms). */
  revocationsOf(subject: string, now: number): Promise<Revocation[]>;
  /** Forgets the subject's revocations issued at or before `issuedAt` but the one named `keep` (a mark covers them). */
  forgetCovered(subject: string, issuedAt: number, keep: string): Promise<void>;
  /** The revocations recorded at or after `since` (epoch ms) whose token has not expired by `now`. */
  revokedSince(since: number, now: number): Promise<Revocation[]>;
  /** Forgets the revocations of tokens expired before `now`; how many. */
  forgetExpired(now: number): Promise<number>;
}

/**
 * A WordPress site's settings that GET config publishes (domain/config.ts), read anew at each call
 * (the caller caches): the site's administrators change them without telling Souk. Undefined where
 * Souk's own settings apply (SQLite, PostgreSQL).
 */
export interface SiteConfigReader {
  siteConfig(): Promise<MarketplaceSettings | undefined>;
}
