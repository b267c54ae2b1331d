/**
 * Whether a WordPress site's user holds a capability (the console lets in those holding
 * `manage_rtcl_options`): granted to them directly in `{prefix}usermeta`'s `{prefix}capabilities`,
 * or by one of their roles there, as `{prefix}options`' `{prefix}user_roles` defines it. Read anew
 * at each sign-in, so a change on the site applies at the next one.
 */
import { sql } from 'kysely';
import { rows, T, type Db, type MysqlContext } from './context.js';
import { phpObject } from './site.js';

const granted = (value: unknown) => value === true || value === 1 || value === '1' || value === 'true';

export function mysqlSiteCapabilities(db: Db, ctx: MysqlContext) {
  const { t } = ctx;
  return {
    async holds(userId: number, capability: string): Promise<boolean> {
      const [meta] = await rows(
        db,
        sql<{ meta_value: string | null }>`select meta_value from ${T(t.usermeta)}
          where user_id = ${userId} and meta_key = ${`${t.prefix}capabilities`} limit 1`,
      );
      const own = phpObject(meta?.meta_value ?? undefined);
      if (granted(own[capability])) return true;
      const roles = Object.keys(own).filter((role) => granted(own[role]));
      if (roles.length === 0) return false;
      const [option] = await rows(
        db,
        sql<{ option_value: string }>`select option_value from ${T(t.options)} where option_name = ${`${t.prefix}user_roles`} limit 1`,
      );
      const defined = phpObject(option?.option_value);
      return roles.some((role) => {
        const capabilities = (defined[role] as { capabilities?: Record<string, unknown> } | undefined)?.capabilities;
        return capabilities !== undefined && typeof capabilities === 'object' && granted(capabilities[capability]);
      });
    },
  };
}
