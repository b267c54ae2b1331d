/** souk settings [get KEY | set rest_api true|false] and souk api-key rotate. */
import { newSecret, SETTING } from '../../auth/settings.js';
import { ensureSettings } from '../../auth/settings.js';
import { CATALOG_VERSION } from '../../domain/ports.js';
import { BAD_WORDS_ACTION_SETTING, BAD_WORDS_ACTIONS, BAD_WORDS_SETTING, normalisedBadWords } from '../../domain/safety/words.js';
import { checkedTunable, TUNABLE_KEYS, tunableOfKey } from '../../domain/tunables.js';
import { usageError, type Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';

/** Settings printed as they are; every other one is a secret (a new setting is masked until listed here). */
const PLAIN_KEYS: string[] = [SETTING.restApi, BAD_WORDS_SETTING, BAD_WORDS_ACTION_SETTING, ...TUNABLE_KEYS];

/** The settings `souk settings set` changes; the secrets have their own rotate commands. */
const SETTABLE = [SETTING.restApi, BAD_WORDS_SETTING, BAD_WORDS_ACTION_SETTING, ...TUNABLE_KEYS];

/** The value to store, or why not. */
function checkedValue(key: string, value: string): string {
  if (key === SETTING.restApi) {
    if (value !== 'true' && value !== 'false') throw new CliError(`rest_api must be true or false, got "${value}"`);
    return value;
  }
  const tunable = tunableOfKey(key);
  if (tunable) {
    const checked = checkedTunable(tunable, value);
    if (!checked.ok) throw new CliError(`${checked.problem}, got "${value}"`);
    return checked.stored;
  }
  if (key === BAD_WORDS_ACTION_SETTING) {
    if (!(BAD_WORDS_ACTIONS as readonly string[]).includes(value))
      throw new CliError(`bad_words_action must be ${BAD_WORDS_ACTIONS.join(' or ')}, got "${value}"`);
    return value;
  }
  return normalisedBadWords(value);
}

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
  if (!SETTABLE.includes(key as (typeof SETTABLE)[number]))
    throw usageError('settings set', `only ${SETTABLE.join(', ')} are set this way, got "${key}"`);
  const stored = checkedValue(key, value);
  await ensureSettings(ctx.store.settings);
  await ctx.store.settings.set(key, stored);
  ctx.out(`${key}=${stored}`);
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
    summary: "switch the REST interface on or off, set the chat bad words, an abuse limit, the retention or the mail's timing",
    about:
      'Stores rest_api (false answers every call 403 DENIED_REST_API until it is true again), bad_words (a comma-separated list of ' +
      'words a chat message may not hold, matched as whole words whatever their case or width; "" for none; on a WordPress site ' +
      "the plugin's own chat setting) or bad_words_action (reject: 400 naming the words, the default; mask: each match stored as " +
      "*), or an abuse limit, the retention or the mail's timing in place of the environment's (messages_per_minute, " +
      'new_conversations_per_hour, reports_per_hour, block_changes_per_hour, chat_retention_days, mail_delay_s, ' +
      'mail_min_interval_s: a whole number, 0 for none; "" for the environment\'s again). ' +
      'Running servers apply it within SETTINGS_REFRESH_MS.',
    args: [
      {
        name: 'KEY',
        help: `rest_api, bad_words, bad_words_action or ${TUNABLE_KEYS.join(', ')} (api-key rotate and jwt-secret rotate replace the secrets)`,
      },
      {
        name: 'VALUE',
        help: 'rest_api: true or false; bad_words: "word1,word2"; bad_words_action: reject or mask; a limit or the retention: a whole number or ""',
      },
    ],
    examples: [
      'souk settings set rest_api false',
      'souk settings set bad_words "scam,western union"',
      'souk settings set bad_words_action mask',
      'souk settings set messages_per_minute 10',
    ],
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
