/** souk settings [get KEY | set rest_api true|false] and souk api-key rotate. */
import { newSecret, SETTING } from '../../auth/settings.js';
import { ensureSettings } from '../../auth/settings.js';
import { CATALOG_VERSION } from '../../domain/ports.js';
import { CliError, type CliContext } from '../context.js';

/** Settings printed as they are; every other one is a secret (a new setting is masked until listed here). */
const PLAIN_KEYS: string[] = [SETTING.restApi];

/** A secret is never listed, not even in part: only whether it is set. */
function shown(key: string, value: string): string {
  return PLAIN_KEYS.includes(key) || value === '' ? value : '****';
}

export async function listSettings(ctx: CliContext): Promise<void> {
  const all = await ensureSettings(ctx.store.settings);
  for (const key of Object.keys(all).sort()) {
    if (key === CATALOG_VERSION) continue; // a marker for the servers' caches, not a setting
    const value = all[key] as string;
    ctx.out(`${key}=${shown(key, value)}`);
  }
  ctx.err('note: secrets are masked; souk settings get KEY prints one value');
  if (ctx.config.apiKey)
    ctx.err('note: API_KEY (or API_KEY_FILE) is set in the environment and overrides api_key in servers started with it');
  if (ctx.config.jwtSecret) ctx.err('note: JWT_SECRET (or JWT_SECRET_FILE) is set in the environment and overrides jwt_secret');
  if (ctx.config.tokenMacKey) ctx.err('note: TOKEN_MAC_KEY (or TOKEN_MAC_KEY_FILE) is set in the environment and overrides token_mac_key');
}

export async function getSetting(ctx: CliContext, key: string | undefined): Promise<void> {
  if (!key) throw new CliError('usage: souk settings get KEY');
  const all = await ensureSettings(ctx.store.settings);
  const value = all[key];
  if (value === undefined) throw new CliError(`unknown setting "${key}"; known: ${Object.keys(all).sort().join(', ')}`);
  ctx.out(value);
}

export async function setSetting(ctx: CliContext, key: string | undefined, value: string | undefined): Promise<void> {
  if (key !== SETTING.restApi) throw new CliError(`usage: souk settings set rest_api true|false (settable: ${SETTING.restApi})`);
  if (value !== 'true' && value !== 'false') throw new CliError(`rest_api must be true or false, got "${value ?? ''}"`);
  await ensureSettings(ctx.store.settings);
  await ctx.store.settings.set(key, value);
  ctx.out(`${key}=${value}`);
}

export async function rotateApiKey(ctx: CliContext): Promise<void> {
  await ensureSettings(ctx.store.settings);
  const key = newSecret();
  await ctx.store.settings.set(SETTING.apiKey, key);
  ctx.out(key);
  if (ctx.config.apiKey) ctx.err('note: API_KEY (or API_KEY_FILE) is set in the environment; servers started with it keep using that key');
}
