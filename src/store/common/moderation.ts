/**
 * Moderation's writes and locks on Souk's own schema (domain/moderation.ts). On PostgreSQL
 * (`rowLocks`) a disable or an erasure locks the user's row FOR UPDATE, and every send reads its
 * two participants FOR KEY SHARE: that waits only for a disable or an erasure in progress (a send's
 * own writer lock, FOR NO KEY UPDATE, does not conflict with it), so sends never wait for each
 * other here. On SQLite every write transaction already holds the database's one write lock.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { CARRYING_EVENTS, payloadCarries } from '../../domain/events.js';
import type { ModerationRepository } from '../../domain/moderation.js';
import { prepare, type QueryRunner } from './prepared.js';
import { toMessage } from './rows.js';
import { auditValues } from './server-api.js';
import { MESSAGE_COLUMNS, type Database } from './schema.js';

/** The plugin's mark of a message its admin removed. */
export const REMOVED_MESSAGE = { message: '', attachments: null, type: 'system' } as const;

/** The profile an erased user keeps: the name the other side's conversations show, nothing else. */
export const ERASED_PROFILE = {
  login: '',
  name: 'Deleted user',
  email: '',
  phone: '',
  whatsapp: '',
  website: '',
  profile_picture: '',
  first_name: '',
  last_name: '',
  description: '',
  address: '',
  zipcode: '',
  latitude: '',
  longitude: '',
  locations: '[]',
  disabled: 1,
} as const;

/** Outbox rows read at a time when an erasure looks for those that carry the user. */
const CARRIED_PAGE = 500;

/** PostgreSQL's advisory lock key of the retention's deletions: any constant of Souk's own. */
const RETENTION_LOCK = sql.lit(0x50_4b_52_54);

/**
 * The users' rows with their `disabled`; with `locked`, each read FOR KEY SHARE, open or not: an
 * open user's lock is what a disable or an erasure waits for.
 */
function participants(db: Kysely<Database>, userIds: number[], locked: boolean) {
  const query = db.selectFrom('users').select(['id', 'disabled']).where('id', 'in', userIds);
  return locked ? query.forKeyShare() : query;
}

/** The users whose ids the SQL array `ids` holds, with their `disabled`, each read FOR KEY SHARE. */
const usersLocked = (db: Kysely<Database>, ids: RawBuilder<unknown>) =>
  db
    .selectFrom('users')
    .select(['id', 'disabled'])
    .where(sql<boolean>`id = any(${ids})`)
    .forKeyShare();

const participant = (db: Kysely<Database>, id: number) => db.selectFrom('users').select(['id', 'disabled']).where('id', '=', id);

const q = {
  // Two lookups of the primary key: for `id in (?, ?)` SQLite builds a temporary index first, on
  // every send. PostgreSQL's locking read keeps `in` (FOR KEY SHARE is not allowed with UNION).
  participants: prepare((db, a: number, b: number) => participant(db, a).unionAll(participant(db, b))),
  participantsLocked: prepare((db, a: number, b: number) => participants(db, [a, b], true)),
  // The same rows and locks, found through the conversation or the listing: no need to have read
  // it first. Each id is a lookup of that row's key; then the users' key, as above.
  conversationParticipantsLocked: prepare((db, conId: number) => {
    const participantOf = (column: 'sender_id' | 'recipient_id') => db.selectFrom('conversations').select(column).where('id', '=', conId);
    return usersLocked(db, sql`array[(${participantOf('sender_id')}), (${participantOf('recipient_id')})]`);
  }),
  withOwnerLocked: prepare((db, listingId: number, userId: number) =>
    usersLocked(db, sql`array[${userId}, (${db.selectFrom('listings').select('owner_id').where('id', '=', listingId)})]`),
  ),
};

const closedOf = (users: { id: number; disabled: number }[]) => users.filter((u) => u.disabled !== 0).map((u) => Number(u.id));

const count = (result: { numAffectedRows?: bigint; numUpdatedOrDeletedRows?: bigint }) =>
  Number(result.numAffectedRows ?? result.numUpdatedOrDeletedRows ?? 0);

export function moderationRepository(run: QueryRunner, rowLocks: boolean): ModerationRepository {
  const { db } = run;
  const exec = async <O>(query: { compile(): import('kysely').CompiledQuery<O> }) => run.execute(query.compile());
  const affected = async (query: { compile(): import('kysely').CompiledQuery<unknown> }) => count(await exec(query));

  /**
   * Deletes the other users' webhook and push rows whose payload carries the erased user's words or
   * profile (domain/events.ts): pending ones would send them, delivered ones could be replayed.
   */
  async function forgetCarried(userId: number): Promise<number> {
    let deleted = 0;
    for (const table of ['webhook_outbox', 'push_outbox'] as const) {
      for (let after = 0; ;) {
        let page = db
          .selectFrom(table)
          .select(['id', 'payload'])
          .where('user_id', '<>', userId)
          .where('id', '>', after)
          .orderBy('id')
          .limit(CARRIED_PAGE);
        if (table === 'webhook_outbox') page = page.where('type', 'in', CARRYING_EVENTS);
        const rows = (await exec(page)).rows;
        const ids = rows.filter((r) => payloadCarries(r.payload, userId)).map((r) => Number(r.id));
        if (ids.length > 0) deleted += await affected(db.deleteFrom(table).where('id', 'in', ids));
        if (rows.length < CARRIED_PAGE) break;
        after = Number(rows.at(-1)!.id);
      }
    }
    return deleted;
  }

  async function mark(userId: number, column: 'disabled_at' | 'erased_at', at: number) {
    await exec(
      db
        .insertInto('user_moderation')
        .values({ user_id: userId, disabled_at: null, erased_at: null, [column]: at })
        // The first time stays: erasing again changes nothing.
        .onConflict((oc) =>
          oc.column('user_id').doUpdateSet({ [column]: sql<number>`coalesce(user_moderation.${sql.ref(column)}, ${at})` }),
        ),
    );
  }

  return {
    async lockUser(userId) {
      const query = db
        .selectFrom('users')
        .select(['users.id', 'users.disabled'])
        .select((eb) => eb.selectFrom('user_moderation as m').select('m.erased_at').whereRef('m.user_id', '=', 'users.id').as('erased_at'))
        .where('users.id', '=', userId);
      const row = (await exec(rowLocks ? query.forUpdate() : query)).rows[0];
      return row && { disabled: row.disabled !== 0, erased: row.erased_at !== null };
    },
    async closedAmong(userIds) {
      // A message's two participants, on every start and answer: prepared once.
      const found =
        userIds.length === 2
          ? (await (rowLocks ? q.participantsLocked : q.participants)(run, userIds[0]!, userIds[1]!)).rows
          : (await exec(participants(db, userIds, rowLocks))).rows;
      return closedOf(found);
    },
    // PostgreSQL's: each saves a message or a start a round trip; SQLite has none to save.
    ...(rowLocks && {
      closedInConversation: async (conId: number) => closedOf((await q.conversationParticipantsLocked(run, conId)).rows),
      closedWithOwnerOf: async (listingId: number, userId: number) => closedOf((await q.withOwnerLocked(run, listingId, userId)).rows),
    }),
    async setDisabled(userId, disabled, at) {
      await exec(
        db
          .updateTable('users')
          .set({ disabled: disabled ? 1 : 0 })
          .where('id', '=', userId),
      );
      if (disabled) await mark(userId, 'disabled_at', at);
      else await exec(db.deleteFrom('user_moderation').where('user_id', '=', userId).where('erased_at', 'is', null));
    },
    async recordAudit(entry) {
      await exec(db.insertInto('audit_log').values(auditValues(entry)));
    },
    async removeMessage(messageId) {
      await exec(db.updateTable('messages').set(REMOVED_MESSAGE).where('id', '=', messageId));
      await exec(db.deleteFrom('message_files').where('message_id', '=', messageId));
      await exec(db.deleteFrom('message_edits').where('message_id', '=', messageId));
      const row = (await exec(db.selectFrom('messages').select(MESSAGE_COLUMNS).where('id', '=', messageId))).rows[0];
      return row && toMessage(row);
    },
    async erase(userId, at) {
      const messages = await affected(
        db
          .updateTable('messages')
          .set({ ...REMOVED_MESSAGE, temp_id: null })
          .where('source_id', '=', userId)
          .where((eb) => eb.or([eb('message', '<>', ''), eb('attachments', 'is not', null), eb('type', '<>', 'system')])),
      );
      await exec(
        db.deleteFrom('message_files').where('message_id', 'in', db.selectFrom('messages').select('id').where('source_id', '=', userId)),
      );
      await exec(db.deleteFrom('message_edits').where('source_id', '=', userId));
      const favourites = await affected(db.deleteFrom('favourites').where('user_id', '=', userId));
      const devices = await affected(db.deleteFrom('push_devices').where('user_id', '=', userId));
      let events = await affected(db.deleteFrom('events').where('user_id', '=', userId));
      events += await affected(db.deleteFrom('webhook_outbox').where('user_id', '=', userId));
      events += await affected(db.deleteFrom('push_outbox').where('user_id', '=', userId));
      events += await forgetCarried(userId);
      await exec(db.deleteFrom('event_tickets').where('user_id', '=', userId));
      await exec(db.deleteFrom('user_credentials').where('user_id', '=', userId));
      await exec(db.updateTable('users').set(ERASED_PROFILE).where('id', '=', userId));
      await mark(userId, 'erased_at', at);
      return { messages, favourites, devices, events, profileErased: true };
    },
    async deleteInactiveConversations(before, limit) {
      if (rowLocks) {
        // For this transaction only: one instance deletes at a time, and a crash leaves no lock behind.
        const locked = await run.execute(
          sql<{ locked: boolean }>`select pg_try_advisory_xact_lock(${RETENTION_LOCK}) as locked`.compile(db),
        );
        if (!locked.rows[0]?.locked) return null;
      }
      const inactive = db.selectFrom('conversations').select('id').where('updated_at', '<', before).limit(limit);
      // Their messages go with them (the foreign key's cascade). The time is checked again on the row
      // deleted: PostgreSQL re-reads a row that a message changed meanwhile, and keeps it.
      return affected(db.deleteFrom('conversations').where('id', 'in', inactive).where('updated_at', '<', before));
    },
  };
}
