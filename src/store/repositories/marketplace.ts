/** Kysely repositories for the use cases' ports. Only SQL both SQLite and PostgreSQL accept. */
import type { Kysely } from 'kysely';
import type { NewMessage } from '../../domain/model.js';
import type {
  ConversationRepository,
  FavouriteRepository,
  ListingRepository,
  MessageRepository,
  Repositories,
  UserRepository,
} from '../../domain/ports.js';
import type { Database, Dialect } from '../schema.js';
import { toConversation, toListing, toMessage, toUser } from './rows.js';

type Db = Kysely<Database>;

function users(db: Db, dialect: Dialect): UserRepository {
  return {
    async findById(id) {
      const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toUser(row);
    },
    async lock(id) {
      // SQLite transactions already hold the database write lock (begin immediate).
      // On PostgreSQL, FOR NO KEY UPDATE: it serialises the user's writes like FOR UPDATE, but does
      // not block the KEY SHARE lock that a foreign-key check takes on the same row. With FOR
      // UPDATE, user A starting a conversation with B while B starts one with A deadlocked (each
      // held its own row and waited for the other's, as recipient_id's foreign key): 40P01, a 500.
      if (dialect === 'postgres') {
        await db.selectFrom('users').select('id').where('id', '=', id).forNoKeyUpdate().execute();
      }
    },
  };
}

function listings(db: Db): ListingRepository {
  return {
    async findById(id) {
      const row = await db.selectFrom('listings').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toListing(row);
    },
  };
}

function favourites(db: Db): FavouriteRepository {
  return {
    async remove(userId, listingId) {
      const result = await db
        .deleteFrom('favourites')
        .where('user_id', '=', userId)
        .where('listing_id', '=', listingId)
        .executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async add(userId, listingId, at) {
      await db
        .insertInto('favourites')
        .values({ user_id: userId, listing_id: listingId, added_at: at })
        .onConflict((oc) => oc.columns(['user_id', 'listing_id']).doNothing())
        .execute();
    },
    async listIds(userId) {
      const rows = await db
        .selectFrom('favourites')
        .select('listing_id')
        .where('user_id', '=', userId)
        .orderBy('id')
        .execute();
      return rows.map((r) => r.listing_id);
    },
  };
}

function conversations(db: Db): ConversationRepository {
  return {
    async findOpen(listingId, senderId, recipientId) {
      const row = await db
        .selectFrom('conversations')
        .selectAll()
        .where('listing_id', '=', listingId)
        .where('sender_id', '=', senderId)
        .where('recipient_id', '=', recipientId)
        .where('sender_delete', '=', 0)
        .where('recipient_delete', '=', 0)
        .executeTakeFirst();
      return row && toConversation(row);
    },
    async create(listingId, senderId, recipientId, at) {
      const row = await db
        .insertInto('conversations')
        .values({
          listing_id: listingId,
          sender_id: senderId,
          recipient_id: recipientId,
          sender_delete: 0,
          recipient_delete: 0,
          sender_review: 0,
          recipient_review: 0,
          invert_review: 0,
          created_at: at,
          updated_at: at,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toConversation(row);
    },
    async recordLastMessage(conId, messageId, at) {
      await db
        .updateTable('conversations')
        .set({ last_message_id: messageId, updated_at: at })
        .where('id', '=', conId)
        .execute();
    },
    async findById(conId) {
      const row = await db.selectFrom('conversations').selectAll().where('id', '=', conId).executeTakeFirst();
      return row && toConversation(row);
    },
    async unreadCount(conId, readerId) {
      const row = await db
        .selectFrom('messages')
        .select((eb) => eb.fn.countAll<number | string>().as('n'))
        .where('con_id', '=', conId)
        .where('source_id', '<>', readerId)
        .where('is_read', '=', 0)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

function messages(db: Db): MessageRepository {
  return {
    async findByTempId(conId, sourceId, tempId) {
      const row = await db
        .selectFrom('messages')
        .selectAll()
        .where('con_id', '=', conId)
        .where('source_id', '=', sourceId)
        .where('temp_id', '=', tempId)
        .executeTakeFirst();
      return row && toMessage(row);
    },
    async findById(id) {
      const row = await db.selectFrom('messages').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toMessage(row);
    },
    async create(m: NewMessage) {
      const row = await db
        .insertInto('messages')
        .values({
          con_id: m.conId,
          source_id: m.sourceId,
          message: m.text,
          type: m.type,
          attachments: m.attachments === null ? null : JSON.stringify(m.attachments),
          meta: null,
          is_read: 0,
          temp_id: m.tempId,
          created_at: m.createdAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow();
      return toMessage(row);
    },
  };
}

export function marketplaceRepositories(db: Db, dialect: Dialect): Repositories {
  return {
    users: users(db, dialect),
    listings: listings(db),
    favourites: favourites(db),
    conversations: conversations(db),
    messages: messages(db),
  };
}
