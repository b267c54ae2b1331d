/**
 * Table shapes as Kysely sees them. Booleans are stored as 0/1 integers and
 * times as epoch milliseconds, so both SQLite and PostgreSQL hold them alike.
 */
import type { Generated } from 'kysely';

export interface SettingsTable {
  key: string;
  value: string;
  updated_at: number;
}

export interface UsersTable {
  id: number;
  login: string;
  name: string;
  email: string;
  phone: string;
  whatsapp: string;
  website: string;
  profile_picture: string;
  disabled: number;
  first_name: string;
  last_name: string;
  description: string;
  is_admin: number;
  address: string;
  zipcode: string;
  latitude: string;
  longitude: string;
  /** JSON text of the user's location terms, as the user object carries them (media-json.ts). */
  locations: string;
  /** When the account was made (ms), null when the import did not say (migration 022). */
  registered_at: number | null;
}

/** A user's password, apart from the profile: only sign-in reads it. */
export interface UserCredentialsTable {
  user_id: number;
  /** Any form sign-in verifies (auth/passwords.ts): WordPress's, bcrypt, argon2id. */
  password_hash: string;
}

/**
 * A token signed out before it expired, by its subject and the SHA-256 digest of its jti (or a
 * mark, digest `<=iat`: the subject's tokens issued up to then); kept until it expires.
 */
export interface RevokedTokensTable {
  subject: string;
  digest: string;
  issued_at: number;
  expires_at: number;
  revoked_at: number;
}

export interface ListingsTable {
  id: number;
  owner_id: number;
  title: string;
  slug: string;
  status: string;
  price: string;
  /** JSON text: arrays of the interface's image and term objects. */
  images: string;
  category: string;
  location: string;
  /** Raised by every update, so cached copies can tell they are stale. */
  version: Generated<number>;
  updated_at: number;
}

/**
 * What the favourites list shows of a listing beyond the listings row (migration 009). A table of
 * its own: the toggle and the conversation start read listings on every request, and on SQLite a
 * listing's row is read whole; this stays out of those rows, and out of the listing cache.
 */
export interface ListingDetailsTable {
  listing_id: number;
  /** price, range or disabled. */
  pricing_type: string;
  max_price: string;
  price_type: string;
  /** JSON text of a string array. */
  price_units: string;
  price_unit: string;
  ad_type: string;
  /** JSON text of term objects. */
  tags: string;
  /** The listing's date, epoch ms. */
  created_at: number;
  view_count: number;
  /** JSON text of string arrays. */
  promotions: string;
  badges: string;
  /** JSON text of the contact block, in the reply's key order. */
  contact: string;
  /** JSON text of `{id, title}`, or null when the listing belongs to no store. */
  store: string | null;
}

export interface FavouritesTable {
  /** Insertion order: the reply lists the oldest addition first (D5). */
  id: Generated<number>;
  user_id: number;
  listing_id: number;
  added_at: number;
  /**
   * 1 when the listing's status is 'publish', else 0 (migration 036): set by the database's triggers
   * from the listing, whatever a writer gives; what the favourites list reads instead of the status.
   */
  listing_published: Generated<number>;
}

/** Who blocked whom (migration 017); the id is the order of blocking. */
export interface UserBlocksTable {
  id: Generated<number>;
  blocker_id: number;
  blocked_id: number;
  created_at: number;
}

/** The listings a user blocked (migration 017). */
export interface ListingBlocksTable {
  id: Generated<number>;
  user_id: number;
  listing_id: number;
  created_at: number;
}

export interface ConversationsTable {
  id: Generated<number>;
  listing_id: number;
  sender_id: number;
  recipient_id: number;
  sender_delete: number;
  recipient_delete: number;
  sender_review: number;
  recipient_review: number;
  invert_review: number;
  last_message_id: number | null;
  created_at: number;
  updated_at: number;
  /** How many messages the conversation holds, kept by triggers (migration 035). */
  message_count: Generated<number>;
}

export interface MessagesTable {
  id: Generated<number>;
  con_id: number;
  source_id: number;
  message: string;
  type: string;
  /** JSON text of the attachment list, or null when there are none. */
  attachments: string | null;
  meta: string | null;
  is_read: number;
  temp_id: string | null;
  created_at: number;
}

/** A stored file a message's attachments name, by its content digest (migration 023): what the sweep asks. */
export interface MessageFilesTable {
  message_id: number;
  digest: string;
}

/** A user's next event number: never pruned, so that numbers are never used twice (migration 011). */
export interface EventSequencesTable {
  user_id: number;
  seq: number;
}

/** A user's event log (their stream), kept for EVENTS_RETENTION_S. */
export interface EventsTable {
  user_id: number;
  seq: number;
  type: string;
  /** The domain event, JSON text (domain/events.ts). */
  payload: string;
  created_at: number;
}

/** A stream ticket, by the SHA-256 digest of its text. */
export interface EventTicketsTable {
  digest: string;
  user_id: number;
  token_digest: string;
  token_expires_at: number;
  expires_at: number;
}

/** A webhook delivery: one event for one receiver (migration 012). */
export interface WebhookOutboxTable {
  id: Generated<number>;
  message_id: string;
  url: string;
  type: string;
  user_id: number;
  /** The domain event, JSON text. */
  payload: string;
  created_at: number;
  /** Retries stop WEBHOOK_RETRY_FOR_S after this. */
  window_from: number;
  /** pending, delivered or failed. */
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  delivered_at: number | null;
}

/** A device's Expo push token, for one user at a time (migration 013). */
export interface PushDevicesTable {
  token: string;
  user_id: number;
  /** JSON text of the plugin's `events` list. */
  events: string;
  registered_at: number;
  /** The registering session (PushDevice.session) and when its token expires (migration 016). */
  session: string;
  session_expires_at: number;
}

/** A push to send: one new message for one recipient (migration 013). */
export interface PushOutboxTable {
  id: Generated<number>;
  user_id: number;
  message_id: number;
  /** The `message.new` domain event, JSON text. */
  payload: string;
  created_at: number;
  /** pending, sent, skipped or failed. */
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  /** The devices an attempt reached: a JSON list of their marks (migration 027; null on MySQL before one). */
  reached: Generated<string | null>;
}

/** A Pusher event to trigger: one event for one user's channel (migration 025). */
export interface PusherOutboxTable {
  id: Generated<number>;
  user_id: number;
  name: string;
  /** The domain event, JSON text. */
  payload: string;
  created_at: number;
  /** pending, sent or failed. */
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  sent_at: number | null;
}

/** Moderation's marks on a user (migration 019): why `users.disabled` is set. */
export interface UserModerationTable {
  user_id: number;
  /** When the operator disabled the user (epoch ms); null once enabled. */
  disabled_at: number | null;
  /** When the user was erased (epoch ms): for good. */
  erased_at: number | null;
}

/** A report (migration 018); `messages` the JSON text of the reported messages as they were. */
export interface ReportsTable {
  id: Generated<number>;
  reporter_id: number;
  kind: string;
  listing_id: number | null;
  con_id: number | null;
  message_id: number | null;
  reported_user_id: number | null;
  reason: string;
  messages: string;
  created_at: number;
  closed_at: number | null;
}

/** A reported message as it was when first reported (migration 024), its domain Message as JSON text. */
export interface ReportMessageCopiesTable {
  message_id: number;
  message: string;
  created_at: number;
}

/** Which reports name which kept message (migration 024). */
/** A sender's correction of a message (migration 029). */
export interface MessageEditsTable {
  id: Generated<number>;
  message_id: number;
  con_id: number;
  source_id: number;
  previous_text: string;
  text: string;
  edited_at: number;
}

export interface ReportMessagesTable {
  report_id: number;
  message_id: number;
}

/** One mail per recipient and conversation while pending (migration 021). */
export interface MailOutboxTable {
  id: Generated<number>;
  user_id: number;
  con_id: number;
  /** `user:conversation` while pending, null once finished: unique, so a conversation has one pending mail per recipient. */
  pending_key: string | null;
  first_message_id: number;
  last_message_id: number;
  created_at: number;
  /** pending, sent, skipped or failed. */
  status: string;
  attempts: number;
  next_attempt_at: number;
  last_error: string | null;
  sent_at: number | null;
}

/** Until when a user is online (migration 021): written at most once per ONLINE_WINDOW_S per user. */
export interface PresenceTable {
  user_id: number;
  /** Epoch ms: the last time they were seen, plus ONLINE_WINDOW_S. */
  online_until: number;
}

/** A user's choice of mail (migration 021): a row only for those who changed it. */
export interface MailPreferencesTable {
  user_id: number;
  /** 1: mail when a message waits; 0: never. */
  email: number;
  /** 1: others who share a conversation see whether the user is online; 0: shown offline (migration 027). */
  show_presence: Generated<number>;
}

/** A server key (migration 026): its name and the SHA-256 of the key, never the key. */
export interface ServerKeysTable {
  name: string;
  digest: string;
  created_at: number;
  last_used_at: number | null;
}

/** One change made through the server API, the CLI's moderation or the console (migration 026). */
export interface AuditLogTable {
  id: Generated<number>;
  at: number;
  actor_kind: string;
  actor: string;
  action: string;
  target_kind: string;
  target_id: number | null;
  reason: string | null;
  /** JSON text of ids and counts; never a user's data. */
  details: string | null;
}

/** The console's staff (migration 030): only digests and hashes of their secrets but the TOTP secret, which sign-in needs. */
export interface StaffTable {
  id: Generated<number>;
  email: string;
  role: string;
  password_hash: string | null;
  totp_secret: string | null;
  totp_step: number;
  setup_digest: string | null;
  setup_expires_at: number | null;
  credentials_at: number;
  created_at: number;
}

export interface Database {
  settings: SettingsTable;
  users: UsersTable;
  listings: ListingsTable;
  listing_details: ListingDetailsTable;
  favourites: FavouritesTable;
  conversations: ConversationsTable;
  messages: MessagesTable;
  message_files: MessageFilesTable;
  user_credentials: UserCredentialsTable;
  revoked_tokens: RevokedTokensTable;
  event_sequences: EventSequencesTable;
  events: EventsTable;
  event_tickets: EventTicketsTable;
  webhook_outbox: WebhookOutboxTable;
  push_devices: PushDevicesTable;
  push_outbox: PushOutboxTable;
  pusher_outbox: PusherOutboxTable;
  user_moderation: UserModerationTable;
  reports: ReportsTable;
  report_message_copies: ReportMessageCopiesTable;
  report_messages: ReportMessagesTable;
  message_edits: MessageEditsTable;
  mail_outbox: MailOutboxTable;
  server_keys: ServerKeysTable;
  audit_log: AuditLogTable;
  staff: StaffTable;
  presence: PresenceTable;
  mail_preferences: MailPreferencesTable;
  user_blocks: UserBlocksTable;
  listing_blocks: ListingBlocksTable;
}

/**
 * A table's columns, every one of them (the type check fails on a missing or unknown name).
 * Queries on the request path name their columns instead of `select *`: on PostgreSQL they are
 * prepared once per connection (postgres/runner.ts), and a prepared `select *` fails ("cached plan
 * must not change result type") as soon as a migration adds a column, while its result stays the
 * same with the columns named.
 */
function allColumns<T>() {
  return <const C extends readonly (keyof T & string)[]>(columns: C & ([Exclude<keyof T, C[number]>] extends [never] ? unknown : never)) =>
    columns;
}

export const USER_COLUMNS = allColumns<UsersTable>()([
  'id',
  'login',
  'name',
  'email',
  'phone',
  'whatsapp',
  'website',
  'profile_picture',
  'disabled',
  'first_name',
  'last_name',
  'description',
  'is_admin',
  'address',
  'zipcode',
  'latitude',
  'longitude',
  'locations',
  'registered_at',
]);
export const LISTING_COLUMNS = allColumns<ListingsTable>()([
  'id',
  'owner_id',
  'title',
  'slug',
  'status',
  'price',
  'images',
  'category',
  'location',
  'version',
  'updated_at',
]);
export const LISTING_DETAIL_COLUMNS = allColumns<ListingDetailsTable>()([
  'listing_id',
  'pricing_type',
  'max_price',
  'price_type',
  'price_units',
  'price_unit',
  'ad_type',
  'tags',
  'created_at',
  'view_count',
  'promotions',
  'badges',
  'contact',
  'store',
]);
/** The columns a conversation is read from: its `message_count` is read alone, by a page's total. */
export type ConversationFields = Omit<ConversationsTable, 'message_count'>;
export const CONVERSATION_COLUMNS = allColumns<ConversationFields>()([
  'id',
  'listing_id',
  'sender_id',
  'recipient_id',
  'sender_delete',
  'recipient_delete',
  'sender_review',
  'recipient_review',
  'invert_review',
  'last_message_id',
  'created_at',
  'updated_at',
]);
export const MESSAGE_COLUMNS = allColumns<MessagesTable>()([
  'id',
  'con_id',
  'source_id',
  'message',
  'type',
  'attachments',
  'meta',
  'is_read',
  'temp_id',
  'created_at',
]);
