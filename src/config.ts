/**
 * Every setting Souk reads from the environment, validated in one place.
 * A bad value stops start-up with a ConfigError whose message names the setting.
 */

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type CurrencyPosition = 'left' | 'right' | 'left_space' | 'right_space';

export interface PriceFormat {
  currencySymbol: string;
  position: CurrencyPosition;
  decimals: number;
  thousandsSeparator: string;
  decimalSeparator: string;
}

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  apiPrefix: string;
  siteUrl: string;
  siteTimezone: string;
  listingUrlTemplate: string;
  /** Overrides of the secrets stored in the database settings (D9). */
  apiKey: string | undefined;
  jwtSecret: string | undefined;
  bodyLimit: number;
  textMaxLength: number;
  maxFiles: number;
  price: PriceFormat;
  logLevel: string;
  /** Human-readable, coloured log lines (development) instead of JSON lines. */
  logPretty: boolean;
  /** When set, GET /metrics requires `Authorization: Bearer <metricsToken>`. */
  metricsToken: string | undefined;
  /** Browser origins allowed to call the service (CORS); empty means CORS is off. */
  corsOrigins: string[];
  /** How often a server re-reads settings changed by the CLI. */
  settingsRefreshMs: number;
  db: {
    poolSize: number;
    statementTimeoutMs: number;
    connectTimeoutMs: number;
    preparedStatements: boolean;
    /** SQLite's page cache in MB. */
    cacheMb: number;
  };
  /** HTTP server limits and timeouts (docs/hardening.md). */
  http: HttpLimits;
  /** Request rate limits per API key and per user (docs/hardening.md). */
  rateLimit: RateLimitConfig;
  /** How long a SIGTERM/SIGINT shutdown waits for in-flight requests before cutting them. */
  shutdownTimeoutMs: number;
}

export interface HttpLimits {
  /** Largest request head (request line and headers) in bytes; larger ones get 431. */
  maxHeaderSize: number;
  /** A client must have sent the whole request head within this time (408 otherwise). */
  headersTimeoutMs: number;
  /** A client must have sent the whole request, body included, within this time (408 otherwise). */
  requestTimeoutMs: number;
  /** An idle keep-alive connection is closed after this time. */
  keepAliveTimeoutMs: number;
}

export interface RateLimitConfig {
  /** Requests per window for one API key; 0 = no limit. */
  perKey: number;
  /** Requests per window for one user; 0 = no limit. */
  perUser: number;
  windowMs: number;
  /** When set, the counters live in Redis and all instances share them. */
  redisUrl: string | undefined;
  redisPrefix: string;
}

type Env = Record<string, string | undefined>;

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
const POSITIONS: CurrencyPosition[] = ['left', 'right', 'left_space', 'right_space'];

function text(env: Env, name: string, fallback: string): string {
  const value = env[name];
  return value === undefined || value === '' ? fallback : value;
}

function optionalSecret(env: Env, name: string): string | undefined {
  const value = env[name];
  if (value === undefined || value === '') return undefined;
  if (value.length < 16) throw new ConfigError(`${name} must be at least 16 characters long`);
  return value;
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min || Number(raw) > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
  }
  return Number(raw);
}

function oneOf<T extends string>(env: Env, name: string, fallback: T, allowed: readonly T[]): T {
  const value = text(env, name, fallback);
  if (!allowed.includes(value as T)) {
    throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
  }
  return value as T;
}

function flag(env: Env, name: string, fallback: boolean): boolean {
  const value = text(env, name, String(fallback)).toLowerCase();
  if (value === 'true' || value === '1') return true;
  if (value === 'false' || value === '0') return false;
  throw new ConfigError(`${name} must be true or false, got "${env[name]}"`);
}

/** A comma-separated allow-list of exact origins such as https://app.example; "*" is refused on purpose. */
function origins(env: Env, name: string): string[] {
  const items = text(env, name, '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  for (const item of items) {
    let origin: string | undefined;
    try {
      origin = new URL(item).origin;
    } catch {
      origin = undefined;
    }
    if (origin !== item || !/^https?:/.test(item)) {
      throw new ConfigError(`${name} must list origins like https://app.example (scheme, host, optional port; no path), got "${item}"`);
    }
  }
  return items;
}

function databaseUrl(env: Env): string {
  const value = text(env, 'DATABASE_URL', 'sqlite:./data/souk.db');
  if (!/^(sqlite:.+|postgres(ql)?:\/\/.+)$/.test(value)) {
    throw new ConfigError('DATABASE_URL must be sqlite:PATH or postgres://user@host:port/db');
  }
  return value;
}

function apiPrefix(env: Env): string {
  // Set but empty is a real choice here: the interface served at {base_url}/v1.
  const value = env.API_PREFIX ?? '/wp-json/rtcl';
  if (!/^(\/[A-Za-z0-9._~-]+)*$/.test(value)) {
    throw new ConfigError(`API_PREFIX must be empty or a path like /wp-json/rtcl, got "${value}"`);
  }
  return value;
}

function siteUrl(env: Env, port: number, host: string): string {
  const value = text(env, 'SITE_URL', `http://${host.includes(':') ? `[${host}]` : host}:${port}`);
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`SITE_URL must be an absolute http(s) address, got "${value}"`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`SITE_URL must be an absolute http(s) address, got "${value}"`);
  }
  return value.replace(/\/+$/, '');
}

function timezone(env: Env): string {
  const value = text(env, 'SITE_TIMEZONE', 'UTC');
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
  } catch {
    throw new ConfigError(`SITE_TIMEZONE must be an IANA time zone such as UTC or Europe/Paris, got "${value}"`);
  }
  return value;
}

function listingUrlTemplate(env: Env): string {
  const value = text(env, 'LISTING_URL_TEMPLATE', '{site_url}/listing/{slug}/');
  if (!value.includes('{slug}') && !value.includes('{id}')) {
    throw new ConfigError('LISTING_URL_TEMPLATE must contain {slug} or {id}');
  }
  return value;
}

export function loadConfig(env: Env = process.env): Config {
  const port = integer(env, 'PORT', 8080, 0, 65535);
  const host = text(env, 'HOST', '127.0.0.1');
  const logLevel = text(env, 'LOG_LEVEL', 'info');
  if (!LOG_LEVELS.includes(logLevel)) {
    throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  }
  return {
    port,
    host,
    databaseUrl: databaseUrl(env),
    apiPrefix: apiPrefix(env),
    siteUrl: siteUrl(env, port, host),
    siteTimezone: timezone(env),
    listingUrlTemplate: listingUrlTemplate(env),
    apiKey: optionalSecret(env, 'API_KEY'),
    jwtSecret: optionalSecret(env, 'JWT_SECRET'),
    bodyLimit: integer(env, 'BODY_LIMIT', 256 * 1024, 1024, 64 * 1024 * 1024),
    textMaxLength: integer(env, 'TEXT_MAX_LENGTH', 5000, 1, 1_000_000),
    maxFiles: 10,
    price: {
      currencySymbol: text(env, 'CURRENCY_SYMBOL', '&#36;'),
      position: oneOf(env, 'CURRENCY_POSITION', 'left', POSITIONS),
      decimals: integer(env, 'PRICE_DECIMALS', 2, 0, 8),
      thousandsSeparator: env.PRICE_THOUSANDS_SEPARATOR ?? ',',
      decimalSeparator: text(env, 'PRICE_DECIMAL_SEPARATOR', '.'),
    },
    logLevel,
    logPretty: flag(env, 'LOG_PRETTY', false),
    metricsToken: optionalSecret(env, 'METRICS_TOKEN'),
    corsOrigins: origins(env, 'CORS_ORIGINS'),
    settingsRefreshMs: integer(env, 'SETTINGS_REFRESH_MS', 2000, 100, 60_000),
    db: {
      poolSize: integer(env, 'DB_POOL_SIZE', 10, 1, 1000),
      statementTimeoutMs: integer(env, 'DB_STATEMENT_TIMEOUT_MS', 5000, 100, 600_000),
      connectTimeoutMs: integer(env, 'DB_CONNECT_TIMEOUT_MS', 3000, 100, 600_000),
      preparedStatements: flag(env, 'DB_PREPARED_STATEMENTS', true),
      cacheMb: integer(env, 'DB_CACHE_MB', 16, 1, 65_536),
    },
    ...hardeningSettings(env),
  };
}

function hardeningSettings(env: Env): Pick<Config, 'http' | 'rateLimit' | 'shutdownTimeoutMs'> {
  const requestTimeoutMs = integer(env, 'REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000);
  const headersTimeoutMs = integer(env, 'HEADERS_TIMEOUT_MS', 10_000, 500, 3_600_000);
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  }
  const redisUrl = env.REDIS_URL === undefined || env.REDIS_URL === '' ? undefined : env.REDIS_URL;
  if (redisUrl !== undefined && !/^rediss?:\/\/.+/.test(redisUrl)) {
    throw new ConfigError(`REDIS_URL must be redis://host:port[/db] or rediss://..., got "${redisUrl}"`);
  }
  return {
    http: {
      maxHeaderSize: integer(env, 'MAX_HEADER_SIZE', 128 * 1024, 8 * 1024, 1024 * 1024),
      headersTimeoutMs,
      requestTimeoutMs,
      keepAliveTimeoutMs: integer(env, 'KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000, 3_600_000),
    },
    rateLimit: {
      perKey: integer(env, 'RATE_LIMIT_PER_KEY', 0, 0, 1_000_000_000),
      perUser: integer(env, 'RATE_LIMIT_PER_USER', 6000, 0, 1_000_000_000),
      windowMs: integer(env, 'RATE_LIMIT_WINDOW_MS', 60_000, 100, 86_400_000),
      redisUrl,
      redisPrefix: text(env, 'RATE_LIMIT_REDIS_PREFIX', 'souk:rl:'),
    },
    shutdownTimeoutMs: integer(env, 'SHUTDOWN_TIMEOUT_MS', 10_000, 0, 3_600_000),
  };
}

/** The password of a database address (user:password@ or ?password=) replaced by ****, for printing. */
export function maskDatabaseUrl(url: string): string {
  return url.replace(/^(postgres(?:ql)?:\/\/[^:/@]*:).*@/, '$1****@').replace(/([?&]password=)[^&]*/gi, '$1****');
}

const mask = (secret: string | undefined) => (secret === undefined ? '' : '****');

/**
 * The effective value of every setting, by its environment name, secrets masked.
 * An empty API_KEY or JWT_SECRET means the value stored in the database is used (D9).
 */
export function effectiveSettings(config: Config): Array<[name: string, value: string]> {
  return [
    ['PORT', String(config.port)],
    ['HOST', config.host],
    ['DATABASE_URL', maskDatabaseUrl(config.databaseUrl)],
    ['DB_POOL_SIZE', String(config.db.poolSize)],
    ['DB_STATEMENT_TIMEOUT_MS', String(config.db.statementTimeoutMs)],
    ['DB_CONNECT_TIMEOUT_MS', String(config.db.connectTimeoutMs)],
    ['DB_PREPARED_STATEMENTS', String(config.db.preparedStatements)],
    ['DB_CACHE_MB', String(config.db.cacheMb)],
    ['API_PREFIX', config.apiPrefix],
    ['SITE_URL', config.siteUrl],
    ['SITE_TIMEZONE', config.siteTimezone],
    ['LISTING_URL_TEMPLATE', config.listingUrlTemplate],
    ['API_KEY', mask(config.apiKey)],
    ['JWT_SECRET', mask(config.jwtSecret)],
    ['BODY_LIMIT', String(config.bodyLimit)],
    ['TEXT_MAX_LENGTH', String(config.textMaxLength)],
    ['CURRENCY_SYMBOL', config.price.currencySymbol],
    ['CURRENCY_POSITION', config.price.position],
    ['PRICE_DECIMALS', String(config.price.decimals)],
    ['PRICE_THOUSANDS_SEPARATOR', config.price.thousandsSeparator],
    ['PRICE_DECIMAL_SEPARATOR', config.price.decimalSeparator],
    ['SETTINGS_REFRESH_MS', String(config.settingsRefreshMs)],
    ['LOG_LEVEL', config.logLevel],
    ['LOG_PRETTY', String(config.logPretty)],
    ['METRICS_TOKEN', mask(config.metricsToken)],
    ['CORS_ORIGINS', config.corsOrigins.join(',')],
    ['MAX_HEADER_SIZE', String(config.http.maxHeaderSize)],
    ['HEADERS_TIMEOUT_MS', String(config.http.headersTimeoutMs)],
    ['REQUEST_TIMEOUT_MS', String(config.http.requestTimeoutMs)],
    ['KEEP_ALIVE_TIMEOUT_MS', String(config.http.keepAliveTimeoutMs)],
    ['SHUTDOWN_TIMEOUT_MS', String(config.shutdownTimeoutMs)],
    ['RATE_LIMIT_PER_KEY', String(config.rateLimit.perKey)],
    ['RATE_LIMIT_PER_USER', String(config.rateLimit.perUser)],
    ['RATE_LIMIT_WINDOW_MS', String(config.rateLimit.windowMs)],
    ['REDIS_URL', config.rateLimit.redisUrl === undefined ? '' : maskDatabaseUrl(config.rateLimit.redisUrl)],
    ['RATE_LIMIT_REDIS_PREFIX', config.rateLimit.redisPrefix],
  ];
}
