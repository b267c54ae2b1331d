/** The console's staff on a WordPress database: Souk's own `{prefix}souk_staff`. */
import { sql } from 'kysely';
import type { StaffRepository } from '../../domain/staff/staff.js';
import { toStaffMember, type StaffRow } from '../common/staff.js';
import { rows, T, type Db, type MysqlContext } from './context.js';

export function mysqlStaff(db: Db, ctx: MysqlContext): StaffRepository {
  const table = T(ctx.t.soukStaff);
  const one = async (where: ReturnType<typeof sql>) => {
    const [row] = await rows(db, sql<StaffRow>`select * from ${table} where ${where} limit 1`);
    return row ? toStaffMember(row) : undefined;
  };
  const affected = (result: { numAffectedRows?: bigint }) => Number(result.numAffectedRows ?? 0) > 0;
  return {
    async add({ email, role, setupDigest, setupExpiresAt, at }) {
      return affected(
        await sql`insert ignore into ${table} (email, role, setup_digest, setup_expires_at, credentials_at, created_at)
          values (${email}, ${role}, ${setupDigest}, ${setupExpiresAt}, ${at}, ${at})`.execute(db),
      );
    },
    list: async () => (await rows(db, sql<StaffRow>`select * from ${table} order by email`)).map(toStaffMember),
    findById: (id) => one(sql`id = ${id}`),
    findByEmail: (email) => one(sql`email = ${email}`),
    findBySetupDigest: (digest) => one(sql`setup_digest = ${digest}`),
    remove: async (email) => affected(await sql`delete from ${table} where email = ${email}`.execute(db)),
    reset: async (email, setupDigest, setupExpiresAt, at) =>
      affected(
        await sql`update ${table} set password_hash = null, totp_secret = null, setup_digest = ${setupDigest},
          setup_expires_at = ${setupExpiresAt}, credentials_at = ${at} where email = ${email}`.execute(db),
      ),
    completeSetup: async (id, setupDigest, passwordHash, totpSecret, at) =>
      affected(
        await sql`update ${table} set password_hash = ${passwordHash}, totp_secret = ${totpSecret}, totp_step = 0,
          setup_digest = null, setup_expires_at = null, credentials_at = ${at}
          where id = ${id} and setup_digest = ${setupDigest} and setup_expires_at > ${at}`.execute(db),
      ),
    takeTotpStep: async (id, step) =>
      affected(await sql`update ${table} set totp_step = ${step} where id = ${id} and totp_step < ${step}`.execute(db)),
  };
}
