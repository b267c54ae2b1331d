/**
 * The settings an owner changes while the servers run (docs/console.md, "Settings"): the abuse
 * limits, the chat's retention and when mail about a waiting message goes. Each is stored in the settings table under its key, as the bad
 * words are, and every server takes it within SETTINGS_REFRESH_MS; without a stored value (or
 * once it is cleared) the environment's value holds: the environment is the default.
 */

export interface Tunable {
  /** The settings table's key (`souk settings set KEY VALUE`). */
  key: string;
  /** The environment variable whose value is the default. */
  env: string;
  min: number;
  max: number;
  /** What 0 means, when it means something of its own. */
  zero: string;
  meaning: string;
}

export const TUNABLES = {
  messagesPerMinute: {
    key: 'messages_per_minute',
    env: 'MESSAGES_PER_MINUTE',
    min: 0,
    max: 1_000_000,
    zero: 'no limit',
    meaning: 'messages one user may send per minute',
  },
  conversationsPerHour: {
    key: 'new_conversations_per_hour',
    env: 'NEW_CONVERSATIONS_PER_HOUR',
    min: 0,
    max: 1_000_000,
    zero: 'no limit',
    meaning: 'conversations one user may start per hour',
  },
  reportsPerHour: {
    key: 'reports_per_hour',
    env: 'REPORTS_PER_HOUR',
    min: 0,
    max: 1_000_000,
    zero: 'no limit',
    meaning: 'reports one user may make per hour',
  },
  blockChangesPerHour: {
    key: 'block_changes_per_hour',
    env: 'BLOCK_CHANGES_PER_HOUR',
    min: 0,
    max: 1_000_000,
    zero: 'no limit',
    meaning: 'changes to their block lists one user may ask per hour',
  },
  chatRetentionDays: {
    key: 'chat_retention_days',
    env: 'CHAT_RETENTION_DAYS',
    min: 0,
    max: 36_500,
    zero: 'kept for ever',
    meaning: 'days without a message after which a conversation is deleted',
  },
  mailDelayS: {
    key: 'mail_delay_s',
    env: 'MAIL_DELAY_S',
    min: 0,
    max: 86_400,
    zero: 'mailed at the next look',
    meaning: 'seconds a new message waits before its recipient, not online, is mailed about it',
  },
  mailMinIntervalS: {
    key: 'mail_min_interval_s',
    env: 'MAIL_MIN_INTERVAL_S',
    min: 0,
    max: 604_800,
    zero: 'no wait',
    meaning: 'seconds at least between two mails to one user about one conversation',
  },
} as const satisfies Record<string, Tunable>;

export type TunableName = keyof typeof TUNABLES;
export type TunableValues = Record<TunableName, number>;

export const TUNABLE_NAMES = Object.keys(TUNABLES) as TunableName[];
export const TUNABLE_KEYS: string[] = TUNABLE_NAMES.map((name) => TUNABLES[name].key);

/** The stored form of a value given as text, or the problem naming the key; '' clears it (the environment's holds). */
export function checkedTunable(name: TunableName, raw: string): { ok: true; stored: string } | { ok: false; problem: string } {
  const { key, min, max } = TUNABLES[name];
  const text = raw.trim();
  if (text === '') return { ok: true, stored: '' };
  if (!/^\d{1,9}$/.test(text) || Number(text) < min || Number(text) > max)
    return { ok: false, problem: `${key} must be a whole number from ${min} to ${max}, or empty for the environment's value` };
  return { ok: true, stored: String(Number(text)) };
}

/** The value in force: the stored one when there is one (and it is valid), else the environment's. */
export function tunableValue(name: TunableName, stored: Record<string, string>, environment: TunableValues): number {
  const raw = stored[TUNABLES[name].key];
  if (raw === undefined || raw === '') return environment[name];
  const checked = checkedTunable(name, raw);
  return checked.ok && checked.stored !== '' ? Number(checked.stored) : environment[name];
}

/** Every tunable's value in force, from the settings as last read. */
export function tunableValues(stored: Record<string, string>, environment: TunableValues): TunableValues {
  return Object.fromEntries(TUNABLE_NAMES.map((name) => [name, tunableValue(name, stored, environment)])) as TunableValues;
}

/** The tunable a settings key names, if any. */
export const tunableOfKey = (key: string): TunableName | undefined => TUNABLE_NAMES.find((name) => TUNABLES[name].key === key);

/** The values in force as the settings last read give them, computed again only when those change. */
export function liveTunables(stored: () => Record<string, string>, environment: TunableValues): () => TunableValues {
  let from: Record<string, string> | undefined;
  let values = environment;
  return () => {
    const now = stored();
    if (now !== from) {
      from = now;
      values = tunableValues(now, environment);
    }
    return values;
  };
}
