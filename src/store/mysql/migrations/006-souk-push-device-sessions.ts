/** As the common 016-push-device-sessions: a push device is bound to the session that registered it. */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';

export function soukPushDeviceSessionsMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`alter table ${T(t.soukPushDevices)}
        add column session varchar(64) not null default '',
        add column session_expires_at bigint not null default 0`.execute(db);
    },
    async down(db) {
      await sql`alter table ${T(t.soukPushDevices)} drop column session_expires_at, drop column session`.execute(db);
    },
  };
}
