/** The console's staff on Souk's own schema (migration 030), and the row form every database shares. */
import type { Kysely } from 'kysely';
import type { StaffMember, StaffRepository, StaffRole } from '../../domain/staff/staff.js';
import type { Database } from './schema.js';

/** A staff row as any database gives it back; numbers may come as text (bigint columns). */
export interface StaffRow {
  id: number | string;
  email: string;
  role: string;
  password_hash: string | null;
  totp_secret: string | null;
  totp_step: number | string;
  setup_digest: string | null;
  setup_expires_at: number | string | null;
  credentials_at: number | string;
  created_at: number | string;
}

export function toStaffMember(row: StaffRow): StaffMember {
  return {
    id: Number(row.id),
    email: row.email,
    role: row.role as StaffRole,
    passwordHash: row.password_hash,
    totpSecret: row.totp_secret,
    totpStep: Number(row.totp_step),
    setupDigest: row.setup_digest,
    setupExpiresAt: row.setup_expires_at === null ? null : Number(row.setup_expires_at),
    credentialsAt: Number(row.credentials_at),
    createdAt: Number(row.created_at),
  };
}

export function staffRepository(db: Kysely<Database>): StaffRepository {
  const one = async (query: Promise<StaffRow | undefined>) => {
    const row = await query;
    return row ? toStaffMember(row) : undefined;
  };
  return {
    async add({ email, role, setupDigest, setupExpiresAt, at }) {
      const result = await db
        .insertInto('staff')
        .values({
          email,
          role,
          password_hash: null,
          totp_secret: null,
          totp_step: 0,
          setup_digest: setupDigest,
          setup_expires_at: setupExpiresAt,
          credentials_at: at,
          created_at: at,
        })
        .onConflict((oc) => oc.column('email').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    list: async () => (await db.selectFrom('staff').selectAll().orderBy('email').execute()).map(toStaffMember),
    findById: (id) => one(db.selectFrom('staff').selectAll().where('id', '=', id).executeTakeFirst()),
    findByEmail: (email) => one(db.selectFrom('staff').selectAll().where('email', '=', email).executeTakeFirst()),
    findBySetupDigest: (digest) => one(db.selectFrom('staff').selectAll().where('setup_digest', '=', digest).executeTakeFirst()),
    async remove(email) {
      const result = await db.deleteFrom('staff').where('email', '=', email).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
    async reset(email, setupDigest, setupExpiresAt, at) {
      const result = await db
        .updateTable('staff')
        .set({ password_hash: null, totp_secret: null, setup_digest: setupDigest, setup_expires_at: setupExpiresAt, credentials_at: at })
        .where('email', '=', email)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async completeSetup(id, setupDigest, passwordHash, totpSecret, at) {
      const result = await db
        .updateTable('staff')
        .set({
          password_hash: passwordHash,
          totp_secret: totpSecret,
          totp_step: 0,
          setup_digest: null,
          setup_expires_at: null,
          credentials_at: at,
        })
        .where('id', '=', id)
        .where('setup_digest', '=', setupDigest)
        .where('setup_expires_at', '>', at)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async takeTotpStep(id, step) {
      const result = await db
        .updateTable('staff')
        .set({ totp_step: step })
        .where('id', '=', id)
        .where('totp_step', '<', step)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}
