/**
 * The shared settings, sign-in's accounts and revoked tokens on a WordPress database.
 *
 * Settings: the API key is the plugin's own (`rtcl_rest_api_key` in wp_options) and the REST
 * switch is its `allow_rest_api` (in the serialised `rtcl_tools_settings`), so Souk and the site
 * accept the same key and stop together; rotating or switching through Souk's CLI writes those
 * options. What the site does not hold (a generated JWT secret when JWT_SECRET is not set, the
 * previous secret of a rotation) is kept in Souk's own `{prefix}souk_settings`. The catalog marker
 * changes every CATALOG_PERIOD_MS: the site edits users without telling Souk, so cached users are
 * read again at least that often.
 */
import { sql } from 'kysely';
import { serialize } from 'php-serialize';
import {
  CATALOG_VERSION,
  type AccountRepository,
  type Revocation,
  type RevocationRepository,
  type SettingsRepository,
} from '../../domain/ports.js';
import { loadUser } from './catalog.js';
import { CATALOG_PERIOD_MS, rows, T, type Db, type MysqlContext } from './context.js';
import { phpObject } from './site.js';

const API_KEY = 'api_key';
const REST_API = 'rest_api';
const API_KEY_OPTION = 'rtcl_rest_api_key';
const TOOLS_OPTION = 'rtcl_tools_settings';
/** The plugin's chat settings: its `bad_words` list is the one Souk applies (domain/safety/words.ts). */
const CHAT_OPTION = 'rtcl_chat_settings';
const BAD_WORDS = 'bad_words';

/** How long a user read from the site may be reused (auth/user-cache.ts) before it is read again. */
export { CATALOG_PERIOD_MS };

async function option(db: Db, ctx: MysqlContext, name: string, lock = false): Promise<string | undefined> {
  const [row] = await rows(
    db,
    sql<{
      option_value: string;
    }>`select option_value from ${T(ctx.t.options)} where option_name = ${name} ${lock ? sql`for update` : sql``}`,
  );
  return row?.option_value;
}

async function setOption(db: Db, ctx: MysqlContext, name: string, value: string, onlyIfAbsent: boolean): Promise<void> {
  // option_name is unique in wp_options; `auto`, as the plugin's own options are loaded.
  await (
    onlyIfAbsent
      ? sql`insert ignore into ${T(ctx.t.options)} (option_name, option_value, autoload) values (${name}, ${value}, 'auto')`
      : sql`insert into ${T(ctx.t.options)} (option_name, option_value, autoload) values (${name}, ${value}, 'auto')
        on duplicate key update option_value = values(option_value)`
  ).execute(db);
}

export function mysqlSettings(db: Db, ctx: MysqlContext): SettingsRepository {
  const { t } = ctx;
  const own = async () => rows(db, sql<{ key: string; value: string }>`select \`key\`, \`value\` from ${T(t.soukSettings)}`);
  async function setOwn(key: string, value: string, onlyIfAbsent: boolean) {
    const now = Date.now();
    await (
      onlyIfAbsent
        ? sql`insert ignore into ${T(t.soukSettings)} (\`key\`, \`value\`, updated_at) values (${key}, ${value}, ${now})`
        : sql`insert into ${T(t.soukSettings)} (\`key\`, \`value\`, updated_at) values (${key}, ${value}, ${now})
          on duplicate key update \`value\` = values(\`value\`), updated_at = values(updated_at)`
    ).execute(db);
  }
  /** One item of one of the plugin's serialised options, the others kept as they are. */
  async function setOptionItem(name: string, item: string, value: string) {
    await db.transaction().execute(async (trx) => {
      const settings = phpObject(await option(trx, ctx, name, true));
      settings[item] = value;
      await setOption(trx, ctx, name, serialize(settings), false);
    });
  }
  return {
    async all() {
      const [mine, apiKey, tools, chat] = await Promise.all([
        own(),
        option(db, ctx, API_KEY_OPTION),
        option(db, ctx, TOOLS_OPTION),
        option(db, ctx, CHAT_OPTION),
      ]);
      const all: Record<string, string> = Object.fromEntries(mine.map((r) => [r.key, r.value]));
      if (apiKey) all[API_KEY] = apiKey;
      else delete all[API_KEY];
      all[REST_API] = phpObject(tools).allow_rest_api === 'yes' ? 'true' : 'false';
      const badWords = phpObject(chat)[BAD_WORDS];
      all[BAD_WORDS] = typeof badWords === 'string' ? badWords : '';
      all[CATALOG_VERSION] = `${all[CATALOG_VERSION] ?? ''}:${Math.floor(Date.now() / CATALOG_PERIOD_MS)}`;
      return all;
    },
    async setIfAbsent(key, value) {
      if (key === API_KEY) {
        // Concurrent first starts agree: the row is created once, and an empty key filled once.
        await setOption(db, ctx, API_KEY_OPTION, value, true);
        await sql`update ${T(ctx.t.options)} set option_value = ${value} where option_name = ${API_KEY_OPTION} and option_value = ''`.execute(
          db,
        );
      } else if (key !== REST_API && key !== BAD_WORDS) {
        // REST_API: the site's own switch decides, never a default of Souk's.
        await setOwn(key, value, true);
      }
    },
    async set(key, value) {
      if (key === API_KEY) await setOption(db, ctx, API_KEY_OPTION, value, false);
      else if (key === REST_API) await setOptionItem(TOOLS_OPTION, 'allow_rest_api', value === 'true' ? 'yes' : '');
      else if (key === BAD_WORDS) await setOptionItem(CHAT_OPTION, BAD_WORDS, value);
      else await setOwn(key, value, false);
    },
  };
}

export function mysqlAccounts(db: Db, ctx: MysqlContext): AccountRepository {
  return {
    async findForSignIn(identifier) {
      // The site's collation compares logins and addresses without case, as WordPress does.
      return (
        (await loadUser(db, ctx, { login: identifier })) ??
        (identifier.includes('@') ? await loadUser(db, ctx, { email: identifier }) : undefined)
      );
    },
    async setPasswordHash(userId, passwordHash) {
      // WordPress's own column: the site signs the user in with the same hash (WordPress 6.8's form).
      const result = await sql`update ${T(ctx.t.users)} set user_pass = ${passwordHash} where ID = ${userId}`.execute(db);
      if (Number(result.numAffectedRows ?? 0) > 0) return true;
      return (await rows(db, sql`select ID from ${T(ctx.t.users)} where ID = ${userId}`)).length > 0;
    },
  };
}

type RevocationRow = {
  subject: string;
  digest: string;
  issued_at: number | string;
  expires_at: number | string;
  revoked_at: number | string;
};

const toRevocation = (r: RevocationRow): Revocation => ({
  subject: r.subject,
  digest: r.digest,
  issuedAt: Number(r.issued_at),
  expiresAt: Number(r.expires_at),
  revokedAt: Number(r.revoked_at),
});

export function mysqlRevocations(db: Db, ctx: MysqlContext): RevocationRepository {
  const table = T(ctx.t.soukRevokedTokens);
  const selectRevocations = sql`select subject, digest, issued_at, expires_at, revoked_at from ${table}`;
  return {
    async revoke({ subject, digest, issuedAt, expiresAt, revokedAt }) {
      await sql`insert ignore into ${table} (subject, digest, issued_at, expires_at, revoked_at)
        values (${subject}, ${digest}, ${issuedAt}, ${expiresAt}, ${revokedAt})`.execute(db);
    },
    async revocationsOf(subject, now) {
      return (await rows(db, sql<RevocationRow>`${selectRevocations} where subject = ${subject} and expires_at > ${now}`)).map(
        toRevocation,
      );
    },
    async forgetCovered(subject, issuedAt, keep) {
      await sql`delete from ${table} where subject = ${subject} and issued_at <= ${issuedAt} and digest <> ${keep}`.execute(db);
    },
    async revokedSince(since, now) {
      return (await rows(db, sql<RevocationRow>`${selectRevocations} where revoked_at >= ${since} and expires_at > ${now}`)).map(
        toRevocation,
      );
    },
    async forgetExpired(now) {
      const result = await sql`delete from ${table} where expires_at <= ${now}`.execute(db);
      return Number(result.numAffectedRows ?? 0);
    },
  };
}
