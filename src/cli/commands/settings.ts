/** souk settings [get KEY | set rest_api true|false] and souk api-key rotate. */
import { newSecret, SETTING } from '../../auth/settings.js';
import { ensureSettings } from '../../auth/settings.js';
import { CATALOG_VERSION } from '../../domain/ports.js';
import { usageError, type Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';

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

export async function getSetting(ctx: CliContext, key: string): Promise<void> {
  const all = await ensureSettings(ctx.store.settings);
  const value = all[key];
  if (value === undefined) throw new CliError(`unknown setting "${key}"; known: ${Object.keys(all).sort().join(', ')}`);
  ctx.out(value);
}

export async function setSetting(ctx: CliContext, key: string, value: string): Promise<void> {
  if (key !== SETTING.restApi) throw usageError('settings set', `only ${SETTING.restApi} is set this way, got "${key}"`);
  if (value !== 'true' && value !== 'false') throw new CliError(`rest_api must be true or false, got "${value}"`);
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

export const settingsCommands: Command[] = [
  {
    name: 'settings',
    summary: 'print the settings',
    about:
      'Prints the settings stored in the database (the API key, the JWT secret, the REST switch) as key=value, every secret as ****. Servers re-read them every SETTINGS_REFRESH_MS.',
    examples: ['souk settings'],
    run: () => withStore(listSettings),
  },
  {
    name: 'settings get',
    summary: "print one setting's raw value",
    about: "Prints one stored setting's value as it is, secrets included: the one place the CLI prints the API key or the JWT secret.",
    args: [{ name: 'KEY', help: 'api_key, jwt_secret, jwt_secret_previous or rest_api' }],
    examples: ['souk settings get api_key'],
    run: ({ args: [key] }) => withStore((ctx) => getSetting(ctx, key!)),
  },
  {
    name: 'settings set',
    summary: 'switch the REST interface on or off',
    about:
      'Stores rest_api: false answers every call 403 DENIED_REST_API until it is true again. Running servers apply it within SETTINGS_REFRESH_MS.',
    args: [
      { name: 'KEY', help: 'rest_api (the one setting set this way; api-key rotate and jwt-secret rotate replace the secrets)' },
      { name: 'VALUE', help: 'true or false' },
    ],
    examples: ['souk settings set rest_api false'],
    run: ({ args: [key, value] }) => withStore((ctx) => setSetting(ctx, key!, value!)),
  },
  {
    name: 'api-key rotate',
    summary: 'generate and print a new API key',
    about:
      'Stores a new random API key and prints it; the old one is refused as soon as servers re-read the settings (SETTINGS_REFRESH_MS). Servers started with API_KEY set keep using that one.',
    examples: ['souk api-key rotate'],
    run: () => withStore(rotateApiKey),
  },
];
