import type { Kysely } from 'kysely';

/**
 * FCM beside Expo, typing and presence (issue 50): a push outbox row remembers the devices an
 * attempt reached (JSON list of their marks, events/push.ts), so that a retry after some devices
 * failed does not push the others twice; a user's choice to hide their presence (`show_presence`,
 * PUT my/notifications) sits beside their choice of mail. Rows before it reached no device yet and
 * show their presence.
 */
export const pushReachedShowPresenceMigration = {
  async up(db: Kysely<any>): Promise<void> {
    await db.schema
      .alterTable('push_outbox')
      .addColumn('reached', 'text', (c) => c.notNull().defaultTo('[]'))
      .execute();
    await db.schema
      .alterTable('mail_preferences')
      .addColumn('show_presence', 'integer', (c) => c.notNull().defaultTo(1))
      .execute();
  },
  async down(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('mail_preferences').dropColumn('show_presence').execute();
    await db.schema.alterTable('push_outbox').dropColumn('reached').execute();
  },
};
