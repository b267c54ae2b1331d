import { sql, type Kysely } from 'kysely';

/**
 * Each conversation keeps how many messages it holds (`message_count`), so that the first page of a
 * conversation answers its `pagination.total` with one row, not by counting 100,000 messages
 * (docs/benchmark.md, chat-poll-long). Triggers keep it: every way a message is written or removed
 * (a send, a start, an import, an erasure, a conversation's cascade) counts, without each path
 * having to. Invariant: `message_count` = the number of `messages` rows with that `con_id`; a
 * message never moves to another conversation.
 */
const backfill = sql`update conversations set message_count = (select count(*) from messages m where m.con_id = conversations.id)`;

export const sqliteMessageCountMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`alter table conversations add column message_count integer not null default 0`.execute(db);
    await backfill.execute(db);
    await sql`create trigger messages_counted_in after insert on messages begin
      update conversations set message_count = message_count + 1 where id = new.con_id; end`.execute(db);
    await sql`create trigger messages_counted_out after delete on messages begin
      update conversations set message_count = message_count - 1 where id = old.con_id; end`.execute(db);
  },
  async down(db: Kysely<any>): Promise<void> {
    await sql`drop trigger if exists messages_counted_out`.execute(db);
    await sql`drop trigger if exists messages_counted_in`.execute(db);
    await sql`alter table conversations drop column message_count`.execute(db);
  },
};

/**
 * Statement-level, over the statement's rows: one update per conversation a statement touched. A
 * row-level trigger made an import of a conversation of 100,000 messages update its row 100,000
 * times in one transaction (the benchmark's data set: 725 s against 9).
 */
const countedBy = (name: string, event: 'insert' | 'delete', rows: 'added' | 'removed', sign: '+' | '-') => ({
  create: [
    sql`create function ${sql.raw(name)}() returns trigger language plpgsql as $$
      begin
        update conversations c set message_count = c.message_count ${sql.raw(sign)} n.n
          from (select con_id, count(*) as n from ${sql.raw(rows)} group by con_id) n where c.id = n.con_id;
        return null;
      end $$`,
    sql`create trigger ${sql.raw(name)} after ${sql.raw(event)} on messages
      referencing ${sql.raw(event === 'insert' ? 'new' : 'old')} table as ${sql.raw(rows)}
      for each statement execute function ${sql.raw(name)}()`,
  ],
  drop: [sql`drop trigger if exists ${sql.raw(name)} on messages`, sql`drop function if exists ${sql.raw(name)}()`],
});
const postgresTriggers = [
  countedBy('messages_counted_in', 'insert', 'added', '+'),
  countedBy('messages_counted_out', 'delete', 'removed', '-'),
];

export const postgresMessageCountMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await sql`alter table conversations add column message_count integer not null default 0`.execute(db);
    await backfill.execute(db);
    // Created in the schema being migrated (the first of search_path), as the tables are.
    for (const trigger of postgresTriggers) for (const statement of trigger.create) await statement.execute(db);
  },
  async down(db: Kysely<any>): Promise<void> {
    for (const trigger of postgresTriggers) for (const statement of trigger.drop) await statement.execute(db);
    await sql`alter table conversations drop column message_count`.execute(db);
  },
};
