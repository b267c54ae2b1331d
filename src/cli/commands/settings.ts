/** souk settings [get KEY | set rest_api true|false] and souk api-key rotate. */
import { newSecret, SETTING } from '../../settings.js';
import { ensureSettings } from '../../settings.js';
import { CATALOG_VERSION } from '../../store/index.js';
import { CliError, type CliContext } from '../context.js';

const SECRET_KEYS: string[] = [SETTING.jwtSecret];

function mask(value: string): string {
  return value.length <= 4 ? '****' : `${value.slice(0, 4)}…(${value.length} characters)`;
}

export async function listSettings(ctx: CliContext): Promise<void> {
  const all = await ensureSettings(ctx.store.settings);
  for (const key of Object.keys(all).sort()) {
    if (key === CATALOG_VERSION) continue; // a marker for the servers' caches, not a setting
    const value = all[key] as string;
    ctx.out(`${key}=${SECRET_KEYS.includes(key) ? mask(value) : value}`);
  }
  if (ctx.config.apiKey) ctx.err('note: API_KEY is set in the environment and overrides api_key in servers started with it');
  if (ctx.config.jwtSecret) ctx.err('note: JWT_SECRET is set in the environment and overrides jwt_secret');
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
  if (ctx.config.apiKey) ctx.err('note: API_KEY is set in the environment; servers started with it keep using that key');
}
