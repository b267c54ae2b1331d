/** The MySQL form of the shared 030-staff: the console's staff, Souk's own table. */
import { sql, type Migration } from 'kysely';
import { T, type Tables } from '../context.js';
import { key, TABLE_OPTIONS } from './table-options.js';

export function soukStaffMigration(t: Tables): Migration {
  return {
    async up(db) {
      await sql`create table if not exists ${T(t.soukStaff)} (
        id bigint unsigned not null auto_increment primary key,
        email varchar(254) not null,
        role varchar(16) not null,
        password_hash varchar(255) null,
        totp_secret varchar(64) null,
        totp_step bigint not null default 0,
        setup_digest char(64) null,
        setup_expires_at bigint null,
        credentials_at bigint not null,
        created_at bigint not null,
        unique key ${key(t.soukStaff, 'email')} (email),
        unique key ${key(t.soukStaff, 'setup_digest')} (setup_digest)
      ) ${TABLE_OPTIONS}`.execute(db);
    },
    async down(db) {
      await sql`drop table if exists ${T(t.soukStaff)}`.execute(db);
    },
  };
}
