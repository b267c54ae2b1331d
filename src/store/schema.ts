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

export interface FavouritesTable {
  /** Insertion order: the reply lists the oldest addition first (D5). */
  id: Generated<number>;
  user_id: number;
  listing_id: number;
  added_at: number;
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

export interface Database {
  settings: SettingsTable;
  users: UsersTable;
  listings: ListingsTable;
  favourites: FavouritesTable;
  conversations: ConversationsTable;
  messages: MessagesTable;
}

export type Dialect = 'sqlite' | 'postgres';
