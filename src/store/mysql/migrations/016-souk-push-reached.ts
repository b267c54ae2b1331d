/**
 * As the common 027-push-reached-show-presence, the push outbox's part: the devices an attempt
 * reached. The choice to hide one's presence is the site's user meta (mail.ts), no table.
 */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';

export function soukPushReachedMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`alter table ${T(t.soukPushOutbox)} add column reached text null`.execute(db);
    },
    async down(db) {
      await sql`alter table ${T(t.soukPushOutbox)} drop column reached`.execute(db);
    },
  };
}
