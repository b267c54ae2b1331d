/** Sign-in's reads and writes: users by login or e-mail with their password, and revoked tokens. */
import { sql, type Kysely } from 'kysely';
import type { AccountRepository, RevocationRepository } from '../../domain/ports.js';
import { setPasswordHash } from './catalog.js';
import { toUser } from './rows.js';
import { USER_COLUMNS, type Database } from './schema.js';

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

export function revocationRepository(db: Kysely<Database>): RevocationRepository {
  return {
    async revoke({ digest, expiresAt, revokedAt }) {
      await db
        .insertInto('revoked_tokens')
        .values({ digest, expires_at: expiresAt, revoked_at: revokedAt })
        .onConflict((oc) => oc.column('digest').doNothing())
        .execute();
    },
    async revokedSince(since, now) {
      const rows = await db
        .selectFrom('revoked_tokens')
        .select(['digest', 'expires_at', 'revoked_at'])
        .where('revoked_at', '>=', since)
        .where('expires_at', '>', now)
        .execute();
      return rows.map((r) => ({ digest: r.digest, expiresAt: r.expires_at, revokedAt: r.revoked_at }));
    },
    async forgetExpired(now) {
      const result = await db.deleteFrom('revoked_tokens').where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
