/**
 * The use cases' repositories on PostgreSQL. Every statement is a round trip to the server, so
 * a toggle and an append are one statement each (common table expressions), and an insert
 * returns its id.
 */
import { sql, type Selectable } from 'kysely';
import type { Repositories } from '../../domain/ports.js';
import type { ListingCache } from '../common/listing-cache.js';
import { eventRecorder } from '../common/events.js';
import { prepare, rawQuery, type QueryRunner } from '../common/prepared.js';
import { TransactionRunner, writesLater } from './transaction-runner.js';
import type { WriterBlocks } from '../common/blocks.js';
import {
  chatReadQueries,
  conversationInsert,
  insertedId,
  listingsWithPriceType,
  messageArguments,
  messageByTempId,
  messageInsert,
  newConversationRow,
  openConversation,
  repositories,
  storedMessage,
  unreadFrom,
  type DatabaseStatements,
} from '../common/repositories.js';
import { toConversation, toMessage } from '../common/rows.js';
import { CONVERSATION_COLUMNS, type ConversationsTable, type MessagesTable } from '../common/schema.js';
import type { PusherQueueing } from '../../domain/pusher.js';
import type { MailQueueing } from '../common/store.js';

const q = {
  listingVersion: prepare((db, id: number) => db.selectFrom('listings').select('version').where('id', '=', id)),
  // The whole toggle in one statement, the listing's check included (canBeFavourited): a listing
  // that cannot be favourited changes nothing and answers one row, listed false. Every part of a
  // statement reads the rows as they were before it: the list is the rows read less the one
  // removed, plus the one added (the newest, so last in id order).
  toggleFavourite: prepare((db, userId: number, listingId: number, at: number) =>
    rawQuery(
      db,
      sql<{ listed: boolean; listing_id: number | null }>`
        with listed as (
          select exists (select from listings where id = ${listingId} and status <> 'trash') as ok
        ), removed as (
          delete from favourites
          where user_id = ${userId} and listing_id = ${listingId} and (select ok from listed)
          returning id
        ), added as (
          insert into favourites (user_id, listing_id, added_at)
          select cast(${userId} as bigint), cast(${listingId} as bigint), cast(${at} as bigint)
          where (select ok from listed) and not exists (select from removed)
          on conflict (user_id, listing_id) do nothing
          returning id, listing_id
        )
        select listed.ok as listed, after.listing_id
        from listed left join (
          select id, listing_id from favourites where user_id = ${userId} and id not in (select id from removed)
          union all
          select id, listing_id from added
        ) as after on listed.ok
        order by after.id`,
    ),
  ),
  createConversation: prepare((db, listingId: number, senderId: number, recipientId: number, at: number) =>
    conversationInsert(db, listingId, senderId, recipientId, at).returning('id'),
  ),
  // The message and its conversation's last-message mark in one statement; the update reads the
  // new id from the insert's RETURNING.
  appendMessage: prepare(
    (
      db,
      conId: number,
      sourceId: number,
      text: string,
      type: string,
      attachments: string | null,
      tempId: string | null,
      at: number,
      meta: string | null,
    ) =>
      db
        .with('appended', (cte) =>
          messageInsert(cte, {
            con_id: conId,
            source_id: sourceId,
            message: text,
            type,
            attachments,
            temp_id: tempId,
            created_at: at,
            meta,
          }).returning('id'),
        )
        .updateTable('conversations')
        // Both participants may write at once: the insert that waited for the row lock may hold the
        // smaller id, and must not move the conversation back to it.
        .set({
          last_message_id: sql<number>`greatest(coalesce(conversations.last_message_id, 0), (select id from appended))`,
          updated_at: sql<number>`greatest(conversations.updated_at, ${at})`,
        })
        .where('id', '=', conId)
        .returning((eb) => eb.selectFrom('appended').select('appended.id').as('id')),
  ),
};

/**
 * The open conversation of the three, read FOR KEY SHARE as findOpen reads it in a transaction,
 * else a new one holding the first message as its last: one row, with the open conversation's
 * columns, or nulls and the new conversation's and message's ids. The message's id is taken from
 * its sequence only when no conversation is open, so a start on an open one takes none. Of an open
 * one, the row also holds what the start asks next: the sender's message stored with the first
 * message's temp_id (as JSON, or null) and the count of the recipient's messages still unread.
 */
const openOrCreateConversation = prepare(
  (
    db,
    listingId: number,
    senderId: number,
    recipientId: number,
    at: number,
    sourceId: number,
    text: string,
    type: string,
    attachments: string | null,
    tempId: string | null,
    createdAt: number,
    meta: string | null,
  ) => {
    // The open conversation's id, null when there is none: what the retry and the count look in.
    const openId = sql<number>`(select id from open)`;
    return rawQuery(
      db,
      sql<
        Selectable<ConversationsTable> & {
          created_id: number | string | null;
          message_id: number | string | null;
          retried: Selectable<MessagesTable> | null;
          unread: number | string | null;
        }
      >`
      with open as ${openConversation(db, listingId, senderId, recipientId).forKeyShare()},
      first as (select nextval('messages_id_seq') as id where not exists (select from open)),
      created as (
        insert into conversations (listing_id, sender_id, recipient_id, sender_delete, recipient_delete,
          sender_review, recipient_review, invert_review, last_message_id, created_at, updated_at)
        select cast(${listingId} as bigint), cast(${senderId} as bigint), cast(${recipientId} as bigint), 0, 0, 0, 0, 0,
          first.id, cast(${at} as bigint), cast(${at} as bigint)
        from first
        returning id
      ),
      appended as (
        insert into messages (id, con_id, source_id, message, type, attachments, temp_id, created_at, meta, is_read)
        select first.id, created.id, cast(${sourceId} as bigint), cast(${text} as text), cast(${type} as text),
          cast(${attachments} as text), cast(${tempId} as text), cast(${createdAt} as bigint), cast(${meta} as text), 0
        from first, created
        returning id
      ),
      retried as ${messageByTempId(db, openId, sourceId, tempId)},
      unread as ${unreadFrom(db, openId, recipientId)}
      select ${sql.join(CONVERSATION_COLUMNS.map((column) => sql.ref(`open.${column}`)))}, created.id as created_id,
        appended.id as message_id, (select row_to_json(retried) from retried limit 1) as retried, (select n from unread) as unread
      from (select) as one left join open on true left join created on true left join appended on true`,
    );
  },
);

/**
 * EventRecorder.hold: the lock logEvent's update takes. A user without a row is not held: nothing
 * has been logged for them yet, so there is no count of theirs to overtake.
 */
const holdLog = prepare((db, userId: number) =>
  db.selectFrom('event_sequences').select('seq').where('user_id', '=', userId).forNoKeyUpdate(),
);

/**
 * Numbers the user's next event and stores it, in one statement. The sequence row stays locked
 * until the transaction commits, so one user's events commit in number order. The unit of work
 * reports the user once it has committed (event-signals.ts): no NOTIFY inside the transaction.
 */
const logEvent = prepare((db, userId: number, type: string, payload: string, at: number) =>
  rawQuery(
    db,
    sql`with numbered as (
      insert into event_sequences (user_id, seq) values (cast(${userId} as bigint), 1)
      on conflict (user_id) do update set seq = event_sequences.seq + 1
      returning user_id, seq
    )
    insert into events (user_id, seq, type, payload, created_at)
    select user_id, seq, cast(${type} as text), cast(${payload} as text), cast(${at} as bigint) from numbered`,
  ),
);

// NO KEY: favourites and conversations that reference the listing are not held up.
const lockListing = prepare((db, id: number) => db.selectFrom('listings').select('id').where('id', '=', id).forNoKeyUpdate());
/** Both users' write locks, in id order: the lock of each one's unit of work (transaction.ts). */
const lockUsers = prepare((db, low: number, high: number) =>
  db.selectFrom('users').select('id').where('id', 'in', [low, high]).orderBy('id').forNoKeyUpdate(),
);

const listingsByIds = prepare((db, ids: string) =>
  listingsWithPriceType(db).where('listings.id', '=', sql<number>`any(cast(${ids} as bigint[]))`),
);

const POSTGRES_STATEMENTS: DatabaseStatements = {
  listingState: { version: q.listingVersion },
  listingsByIds,
  chatReads: chatReadQueries((listingId) => sql<number | null>`(select lv.version from listings as lv where lv.id = ${listingId})`),
  async toggleFavourite(run, userId, listingId, at) {
    const rows = (await q.toggleFavourite(run, userId, listingId, at)).rows;
    return rows[0]?.listed ? rows.flatMap((r) => (r.listing_id === null ? [] : [Number(r.listing_id)])) : undefined;
  },
  insertConversation: async (run, listingId, senderId, recipientId, at) =>
    insertedId(await q.createConversation(run, listingId, senderId, recipientId, at)),
  appendMessage: async (run, m) => insertedId(await q.appendMessage(run, ...messageArguments(m))),
  rowLocks: true,
  async lockListing(run, listingId) {
    await lockListing(run, listingId);
  },
};

/**
 * In a transaction, the conversations read are held against deletion until it ends
 * (keepsConversations), and a start opens or creates its conversation in one statement.
 */
const TRANSACTION_STATEMENTS: DatabaseStatements = {
  ...POSTGRES_STATEMENTS,
  keepsConversations: true,
  async openOrCreateConversation(run, listingId, senderId, recipientId, at, first) {
    // The message's insert arguments but its conversation's, which the statement makes.
    const [, ...message] = messageArguments({ conId: 0, ...first });
    const row = (await openOrCreateConversation(run, listingId, senderId, recipientId, at, ...message)).rows[0]!;
    if (row.created_id === null) {
      const retried = row.retried && toMessage(row.retried);
      return { conversation: toConversation(row), created: false, retried, unreadCount: Number(row.unread) };
    }
    const id = Number(row.created_id);
    const messageId = Number(row.message_id);
    return {
      conversation: toConversation({ id, ...newConversationRow(listingId, senderId, recipientId, at), last_message_id: messageId }),
      created: true,
      appended: storedMessage(messageId, { conId: id, ...first }),
    };
  },
};

export const postgresRepositories = (
  run: QueryRunner,
  cache: ListingCache,
  webhookUrls: readonly string[] = [],
  push = false,
  mail?: MailQueueing,
  writer?: WriterBlocks,
  /** Told of each user an event was logged for, to report once the transaction has committed. */
  recorded?: (userId: number) => void,
  pusher?: PusherQueueing,
): Repositories =>
  repositories(
    run,
    cache,
    run instanceof TransactionRunner ? TRANSACTION_STATEMENTS : POSTGRES_STATEMENTS,
    // Nobody reads what the event log and the outboxes answer: their writes go with the next message.
    eventRecorder(
      writesLater(run),
      {
        logEvent: async (r, userId, type, payload, at) => {
          await logEvent(r, userId, type, payload, at);
        },
        holdLog: async (r, userId) => {
          await holdLog(r, userId);
        },
      },
      webhookUrls,
      recorded,
      push,
      mail,
      pusher,
    ),
    {
      lockUsers: async (r, [low, high]) => {
        await lockUsers(r, low, high);
      },
      writer,
    },
  );
