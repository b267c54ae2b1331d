/**
 * Runtime settings kept in the database so every instance and the CLI share them:
 * the API key, the JWT secret (both generated per installation, D9), the key of Souk's mark on
 * its tokens (token-mac.ts; generated per installation, never shared with a site) and the REST switch.
 * A server re-reads them every few seconds, so a CLI change applies without a restart.
 */
import { randomBytes } from 'node:crypto';
import { CATALOG_VERSION, type SettingsRepository } from '../domain/ports.js';
import { latestRead } from '../domain/latest-read.js';
import type { AuthSettings } from './authenticate.js';

export const SETTING = {
  apiKey: 'api_key',
  jwtSecret: 'jwt_secret',
  jwtSecretPrevious: 'jwt_secret_previous',
  tokenMacKey: 'token_mac_key',
  restApi: 'rest_api',
} as const;

/** The key that seals the staff console's session cookies (32 random bytes, base64url), made at the first start with the console on. */
export const CONSOLE_SESSION_KEY = 'console_session_key';

export interface SecretOverrides {
  apiKey: string | undefined;
  jwtSecret: string | undefined;
  tokenMacKey: string | undefined;
}

export function newSecret(): string {
  return randomBytes(32).toString('base64url');
}

/** Generates whatever is missing; safe when several instances start at once (insert-if-absent). */
export async function ensureSettings(repo: SettingsRepository): Promise<Record<string, string>> {
  let all = await repo.all();
  if (all[SETTING.apiKey] && all[SETTING.jwtSecret] && all[SETTING.tokenMacKey] && all[SETTING.restApi]) return all;
  await repo.setIfAbsent(SETTING.apiKey, newSecret());
  await repo.setIfAbsent(SETTING.jwtSecret, newSecret());
  await repo.setIfAbsent(SETTING.tokenMacKey, newSecret());
  await repo.setIfAbsent(SETTING.restApi, 'true');
  all = await repo.all();
  return all;
}

/** A replaced JWT secret still accepted until a time (`souk jwt-secret rotate --grace`). */
export interface PreviousSecret {
  secret: string;
  untilMs: number;
}

/** The jwt_secret_previous row: JSON {"secret", "until" (ISO time)}; '' when there is none. */
export function formatPreviousSecret(previous: PreviousSecret | undefined): string {
  return previous ? JSON.stringify({ secret: previous.secret, until: new Date(previous.untilMs).toISOString() }) : '';
}

/** A row that cannot be read counts as no previous secret: tokens signed with it are refused. */
export function parsePreviousSecret(raw: string | undefined): PreviousSecret | undefined {
  if (!raw) return undefined;
  try {
    const { secret, until } = JSON.parse(raw) as { secret?: unknown; until?: unknown };
    const untilMs = typeof until === 'string' ? Date.parse(until) : NaN;
    return typeof secret === 'string' && secret.trim() !== '' && Number.isFinite(untilMs) ? { secret, untilMs } : undefined;
  } catch {
    return undefined;
  }
}

export function toAuthSettings(all: Record<string, string>, overrides: SecretOverrides): AuthSettings {
  return {
    apiKey: overrides.apiKey ?? all[SETTING.apiKey] ?? '',
    jwtSecret: overrides.jwtSecret ?? all[SETTING.jwtSecret] ?? '',
    tokenMacKey: overrides.tokenMacKey ?? all[SETTING.tokenMacKey] ?? '',
    // A secret set in the environment is not rotated by the CLI: the stored previous one is not its.
    jwtPreviousSecret: overrides.jwtSecret === undefined ? parsePreviousSecret(all[SETTING.jwtSecretPrevious]) : undefined,
    restApiEnabled: all[SETTING.restApi] !== 'false',
  };
}

export class LiveSettings {
  private timer: NodeJS.Timeout | undefined;

  private constructor(
    private readonly repo: SettingsRepository,
    private readonly overrides: SecretOverrides,
    private value: AuthSettings,
    private catalog: string,
    private all: Record<string, string>,
  ) {}

  static async load(repo: SettingsRepository, overrides: SecretOverrides): Promise<LiveSettings> {
    const all = await ensureSettings(repo);
    return new LiveSettings(repo, overrides, toAuthSettings(all, overrides), all[CATALOG_VERSION] ?? '', all);
  }

  current = (): AuthSettings => this.value;

  /** Changes whenever users or listings were imported or removed (as last polled). */
  catalogVersion = (): string => this.catalog;

  /** Every stored setting as last read (the chat's bad words among them). */
  stored = (): Record<string, string> => this.all;

  /** Reads every setting again; a read that started earlier and ends later is not applied over it. */
  readonly refresh = latestRead(
    () => this.repo.all(),
    (all) => {
      this.all = all;
      this.value = toAuthSettings(all, this.overrides);
      this.catalog = all[CATALOG_VERSION] ?? '';
    },
  );

  /** Polls the database; while it is unreachable the last known settings stay in force. */
  watch(intervalMs: number): void {
    this.timer = setInterval(() => this.refresh().catch(() => {}), intervalMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
