/** Sign-in's reads and writes: users by login or e-mail with their password, and revoked tokens. */
import { sql, type Kysely, type Selectable } from 'kysely';
import type { AccountRepository, Revocation, RevocationRepository } from '../../domain/ports.js';
import { setPasswordHash } from './catalog.js';
import { toUser } from './rows.js';
import { USER_COLUMNS, type Database, type RevokedTokensTable } from './schema.js';

export function accountRepository(db: Kysely<Database>): AccountRepository {
  // Lower-cased on both sides, as the users_login_lower and users_email_lower indexes are (migration 008).
  const byColumn = (column: 'login' | 'email', identifier: string) =>
    db
      .selectFrom('users')
      .leftJoin('user_credentials', 'user_credentials.user_id', 'users.id')
      .select(USER_COLUMNS.map((c) => `users.${c}` as const))
      .select('user_credentials.password_hash')
      .where(sql`lower(${sql.ref(`users.${column}`)})`, '=', identifier.toLowerCase())
      .orderBy('users.id')
      .executeTakeFirst();
  return {
    async findForSignIn(identifier) {
      // A login wins over another user's e-mail that reads the same.
      const row = (await byColumn('login', identifier)) ?? (identifier.includes('@') ? await byColumn('email', identifier) : undefined);
      if (!row) return undefined;
      const { password_hash, ...user } = row;
      return { user: toUser(user), passwordHash: password_hash ?? '' };
    },
    async setPasswordHash(userId, passwordHash) {
      const exists = await db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst();
      if (!exists) return false;
      await setPasswordHash(db, userId, passwordHash);
      return true;
    },
  };
}

const toRevocation = (r: Selectable<RevokedTokensTable>): Revocation => ({
  subject: r.subject,
  digest: r.digest,
  issuedAt: Number(r.issued_at),
  expiresAt: Number(r.expires_at),
  revokedAt: Number(r.revoked_at),
});

export function revocationRepository(db: Kysely<Database>): RevocationRepository {
  const revocations = db.selectFrom('revoked_tokens').selectAll();
  return {
    async revoke({ subject, digest, issuedAt, expiresAt, revokedAt }) {
      await db
        .insertInto('revoked_tokens')
        .values({ subject, digest, issued_at: issuedAt, expires_at: expiresAt, revoked_at: revokedAt })
        .onConflict((oc) => oc.columns(['subject', 'digest']).doNothing())
        .execute();
    },
    async revocationsOf(subject, now) {
      const rows = await revocations.where('subject', '=', subject).where('expires_at', '>', now).execute();
      return rows.map(toRevocation);
    },
    async forgetCovered(subject, issuedAt, keep) {
      await db
        .deleteFrom('revoked_tokens')
        .where('subject', '=', subject)
        .where('issued_at', '<=', issuedAt)
        .where('digest', '<>', keep)
        .execute();
    },
    async revokedSince(since, now) {
      const rows = await revocations.where('revoked_at', '>=', since).where('expires_at', '>', now).execute();
      return rows.map(toRevocation);
    },
    async forgetExpired(now) {
      const result = await db.deleteFrom('revoked_tokens').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
