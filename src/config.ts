/**
 * Every setting Souk reads from the environment, declared once: its name, default, parser, meaning
 * and whether it is secret. The typed `Config`, the validation messages, `souk config` and the
 * settings table of docs/configuration.md all come from the declarations below.
 * A bad value stops start-up with a ConfigError whose message names the setting.
 */
import { isIP } from 'node:net';

import { readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { S3Bucket } from './domain/files/storage.js';
import type { FcmServiceAccount } from './domain/push.js';
import { PLUGIN_FILE_TYPES } from './domain/files/types.js';
import type { PusherApp } from './domain/pusher.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export type CurrencyPosition = 'left' | 'right' | 'left_space' | 'right_space';

type Env = Record<string, string | undefined>;

/** One environment setting. */
export interface Setting<T> {
  readonly name: string;
  /** The settings table's default column (Markdown). */
  readonly shownDefault: string;
  /** The settings table's meaning column (Markdown). */
  readonly meaning: string;
  /** A secret is never printed; a URL is printed with its passwords masked. */
  readonly kind: 'plain' | 'secret' | 'url';
  parse(env: Env): T;
  /** How `souk config` prints the value: secrets and URL passwords never appear. */
  print(value: T): string;
}

interface Spec<T> {
  meaning: string;
  kind?: Setting<T>['kind'];
  /** The settings table's default column when it is not the default value itself. */
  shownDefault?: string;
  print?: (value: T) => string;
}

/** Unset and empty are alike, except for settings whose empty value is a choice of its own. */
const given = (env: Env, name: string): string | undefined => (env[name] === '' ? undefined : env[name]);

function setting<T>(
  name: string,
  fallback: string | undefined,
  parse: (raw: string | undefined, env: Env) => T,
  spec: Spec<T>,
): Setting<T> {
  return {
    name,
    shownDefault: spec.shownDefault ?? `\`${fallback}\``,
    meaning: spec.meaning,
    kind: spec.kind ?? 'plain',
    parse: (env) => parse(env[name], env),
    print: spec.print ?? String,
  };
}

function integer(name: string, fallback: number, min: number, max: number, spec: Spec<number>): Setting<number> {
  return setting(
    name,
    String(fallback),
    (raw, env) => {
      const value = given(env, name);
      if (value === undefined) return fallback;
      if (!/^\d+$/.test(value.trim()) || Number(value) < min || Number(value) > max) {
        throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got "${raw}"`);
      }
      return Number(value);
    },
    spec,
  );
}

function text(name: string, fallback: string, spec: Spec<string> & { check?: (value: string) => string | undefined }): Setting<string> {
  return setting(
    name,
    fallback,
    (_raw, env) => {
      const value = given(env, name) ?? fallback;
      const problem = spec.check?.(value);
      if (problem !== undefined) throw new ConfigError(`${name} ${problem}`);
      return value;
    },
    spec,
  );
}

function oneOf<T extends string>(name: string, fallback: T, allowed: readonly T[], spec: Spec<T>): Setting<T> {
  return setting(
    name,
    fallback,
    (_raw, env) => {
      const value = given(env, name) ?? fallback;
      if (!allowed.includes(value as T)) throw new ConfigError(`${name} must be one of ${allowed.join(', ')}, got "${value}"`);
      return value as T;
    },
    spec,
  );
}

function flag(name: string, fallback: boolean, spec: Spec<boolean>): Setting<boolean> {
  return setting(
    name,
    String(fallback),
    (raw, env) => {
      const value = (given(env, name) ?? String(fallback)).toLowerCase();
      if (value === 'true' || value === '1') return true;
      if (value === 'false' || value === '0') return false;
      throw new ConfigError(`${name} must be true or false, got "${raw}"`);
    },
    spec,
  );
}

/**
 * The content of NAME_FILE, the way container secrets arrive: one trailing newline is not part
 * of the secret. Errors name the setting and the path, never the content.
 */
function secretFromFile(name: string, path: string): string {
  let content: string;
  try {
    content = readFileSync(path, 'utf8');
  } catch (err) {
    throw new ConfigError(`${name}_FILE names a file that cannot be read: ${path} (${(err as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const value = content.replace(/\r?\n$/, '');
  if (value === '') throw new ConfigError(`${name}_FILE names an empty file: ${path}`);
  return value;
}

/**
 * A secret of at least 16 characters, or unset; printed as **** whatever it is. It is given
 * either in NAME or in a file named by NAME_FILE, never both.
 */
function secret(name: string, spec: Spec<string | undefined> & { shownDefault: string }): Setting<string | undefined> {
  return setting(
    name,
    undefined,
    (_raw, env) => {
      const direct = given(env, name);
      const file = given(env, `${name}_FILE`);
      if (direct !== undefined && file !== undefined) throw new ConfigError(`${name} and ${name}_FILE are both set; set only one`);
      const value = file !== undefined ? secretFromFile(name, file) : direct;
      if (value !== undefined && value.length < 16) throw new ConfigError(`${name} must be at least 16 characters long`);
      return value;
    },
    { kind: 'secret', print: (value) => (value === undefined ? '' : '****'), ...spec },
  );
}

const SECRET_PARAMETERS = /^(password|passwd|pass|pwd|sslpassword|sslkey|secret|token|api[_-]?key|key)$/i;

/**
 * A URL with its secrets replaced by ****: the password of `user:password@` in any scheme, and
 * every query parameter that carries a secret (`password`, `sslpassword`, `token`, ...).
 */
export function maskUrlSecrets(url: string): string {
  // Up to the last @, so a password holding an unescaped @ is masked whole.
  const masked = url.replace(/^([a-z][a-z0-9+.-]*:\/\/[^:/@?#]*:).*@/i, '$1****@');
  return masked.replace(/([?&;])([^=&;#]+)=([^&;#]*)/g, (all, sep: string, key: string) =>
    SECRET_PARAMETERS.test(decodeURIComponentSafe(key)) ? `${sep}${key}=****` : all,
  );
}

function decodeURIComponentSafe(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

/** A URL setting: checked against `shape`, printed and reported with its secrets masked. */
function url(
  name: string,
  fallback: string | undefined,
  shape: RegExp,
  expected: string,
  spec: Spec<string | undefined>,
): Setting<string | undefined> {
  return setting(
    name,
    fallback,
    (_raw, env) => {
      const value = given(env, name) ?? fallback;
      if (value !== undefined && !shape.test(value)) {
        throw new ConfigError(`${name} must be ${expected}, got "${maskUrlSecrets(value)}"`);
      }
      return value;
    },
    { kind: 'url', print: (value) => (value === undefined ? '' : maskUrlSecrets(value)), ...spec },
  );
}

/** A comma-separated allow-list of exact origins such as https://app.example; "*" is refused on purpose. */
function origins(value: string): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const item of items) {
    let origin: string | undefined;
    try {
      origin = new URL(item).origin;
    } catch {
      origin = undefined;
    }
    if (origin !== item || !/^https?:/.test(item)) {
      throw new ConfigError(
        `CORS_ORIGINS must list origins like https://app.example (scheme, host, optional port; no path), got "${maskUrlSecrets(item)}"`,
      );
    }
  }
  return items;
}

/** WEBHOOK_URLS: absolute http(s) addresses. */
function webhookUrls(value: string): string[] {
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  for (const item of items) {
    if (!isHttpUrl(item)) throw new ConfigError(`WEBHOOK_URLS must list absolute http(s) addresses, got "${maskUrlSecrets(item)}"`);
  }
  return items;
}

/** A proxy address or CIDR range: an IP, optionally /0-32 (IPv4) or /0-128 (IPv6). */
function isAddressOrCidr(item: string): boolean {
  const [address = '', bits, extra] = item.split('/');
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return false;
  return bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128));
}

/** MAX_CONNECTIONS_PER_ADDRESS; unset, a quarter of MAX_CONNECTIONS (at least 1, at most 256). */
function connectionsPerAddress(env: Env): number {
  const value = given(env, 'MAX_CONNECTIONS_PER_ADDRESS');
  if (value === undefined) {
    const total = given(env, 'MAX_CONNECTIONS');
    const max = total !== undefined && /^\d+$/.test(total.trim()) ? Number(total) : 10_000;
    return Math.max(1, Math.min(256, Math.floor(max / 4)));
  }
  if (!/^\d+$/.test(value.trim()) || Number(value) > 1_000_000) {
    throw new ConfigError(`MAX_CONNECTIONS_PER_ADDRESS must be an integer from 0 to 1000000, got "${value}"`);
  }
  return Number(value);
}

/** TRUST_PROXY: true, false, or the addresses and CIDR ranges of the proxies to trust. */
function trustedProxies(value: string): boolean | string[] {
  const lower = value.trim().toLowerCase();
  if (lower === 'true' || lower === 'false') return lower === 'true';
  const items = value
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const wrong = items.find((item) => !isAddressOrCidr(item));
  if (wrong !== undefined || items.length === 0) {
    throw new ConfigError(
      `TRUST_PROXY must be true, false or a comma list of addresses and CIDRs such as 10.0.0.0/8,::1, got "${wrong ?? value}"`,
    );
  }
  return items;
}

const S3_URL_SHAPE = 's3://KEY:SECRET@HOST[:PORT]/BUCKET[/PREFIX][?region=REGION&tls=false&path_style=false]';

/** FILES_S3_URL: `s3://KEY:SECRET@HOST[:PORT]/BUCKET[/PREFIX]?region=...`; errors never show the secret. */
export function parseS3Url(value: string): S3Bucket {
  const fail = (problem: string) => new ConfigError(`FILES_S3_URL ${problem} (${S3_URL_SHAPE}), got "${maskUrlSecrets(value)}"`);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw fail('is not a URL');
  }
  if (url.protocol !== 's3:' || url.hostname === '') throw fail('must be an s3:// address with a host');
  const [bucket = '', ...prefix] = url.pathname.split('/').filter((s) => s !== '');
  if (!/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/.test(bucket)) throw fail('must name a bucket (3-63 of a-z 0-9 . -)');
  const allowed = new Set(['region', 'tls', 'path_style', 'checksums']);
  for (const key of url.searchParams.keys()) if (!allowed.has(key)) throw fail(`has an unknown parameter ${key}`);
  const bool = (name: string, fallback: boolean) => {
    const raw = url.searchParams.get(name);
    if (raw === null) return fallback;
    if (raw !== 'true' && raw !== 'false') throw fail(`${name} must be true or false`);
    return raw === 'true';
  };
  const user = decodeURIComponentSafe(url.username);
  const password = decodeURIComponentSafe(url.password);
  if ((user === '') !== (password === '')) throw fail('must give both the access key and the secret, or neither');
  const amazon = /(^|\.)amazonaws\.com$/.test(url.hostname);
  const checksums = url.searchParams.get('checksums') ?? 'when_supported';
  if (checksums !== 'when_supported' && checksums !== 'when_required') throw fail('checksums must be when_supported or when_required');
  return {
    endpoint: `${bool('tls', true) ? 'https' : 'http'}://${url.host}`,
    bucket,
    prefix: prefix.join('/'),
    region: url.searchParams.get('region') || 'us-east-1',
    ...(user !== '' ? { credentials: { accessKeyId: user, secretAccessKey: password } } : {}),
    forcePathStyle: bool('path_style', !amazon),
    checksums,
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const POSITIONS: readonly CurrencyPosition[] = ['left', 'right', 'left_space', 'right_space'];

/** Beside the SQLite file (its folder's `files`); `./data/files` for a database server. */
function defaultFilesDir(env: Env): string {
  const database = given(env, 'DATABASE_URL') ?? DEFAULT_DATABASE_URL;
  if (!database.startsWith('sqlite:')) return './data/files';
  const path = database.slice('sqlite:'.length);
  if (path === ':memory:' || path === '') return join(tmpdir(), 'souk-files');
  return join(dirname(path), 'files');
}

const port = integer('PORT', 8080, 0, 65535, { meaning: 'TCP port the server listens on (0 to 65535; 0 picks a free port).' });
const host = text('HOST', '127.0.0.1', {
  meaning: 'Address the server listens on; `0.0.0.0` or `::` to accept connections from other hosts.',
});

/** `Name <address>` or a bare address; undefined when it is neither. */
export function parseMailbox(value: string): { name: string; address: string } | undefined {
  const named = /^\s*"?([^"<>]*?)"?\s*<([^<>\s@]+@[^<>\s@]+)>\s*$/.exec(value);
  if (named) return { name: named[1]!.trim(), address: named[2]! };
  const bare = /^\s*([^<>\s@"]+@[^<>\s@"]+)\s*$/.exec(value);
  return bare ? { name: '', address: bare[1]! } : undefined;
}

/**
 * A Google service account's key file (FCM_SERVICE_ACCOUNT_JSON, or the file FCM_SERVICE_ACCOUNT_FILE
 * names): the fields FCM needs. Errors name the setting and the missing field, never a value.
 */
function fcmServiceAccount(env: Env): FcmServiceAccount | undefined {
  const direct = given(env, 'FCM_SERVICE_ACCOUNT_JSON');
  const file = given(env, 'FCM_SERVICE_ACCOUNT_FILE');
  if (direct !== undefined && file !== undefined)
    throw new ConfigError('FCM_SERVICE_ACCOUNT_JSON and FCM_SERVICE_ACCOUNT_FILE are both set; set only one');
  if (direct === undefined && file === undefined) return undefined;
  const name = direct !== undefined ? 'FCM_SERVICE_ACCOUNT_JSON' : 'FCM_SERVICE_ACCOUNT_FILE';
  let fields: Record<string, unknown>;
  try {
    const parsed = JSON.parse(direct ?? readFileSync(file!, 'utf8')) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
    fields = parsed as Record<string, unknown>;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    throw new ConfigError(
      code !== undefined
        ? `FCM_SERVICE_ACCOUNT_FILE names a file that cannot be read: ${file} (${code})`
        : `${name} is not a service account key (a JSON object)`,
    );
  }
  const field = (key: string): string => {
    const value = fields[key];
    if (typeof value !== 'string' || value.trim() === '')
      throw new ConfigError(`${name} has no "${key}": it must be a service account key file`);
    return value;
  };
  if (fields.type !== 'service_account') throw new ConfigError(`${name} must be a service account key ("type": "service_account")`);
  const tokenUri = field('token_uri');
  if (!isHttpUrl(tokenUri)) throw new ConfigError(`${name}'s "token_uri" must be an absolute http(s) address`);
  if (!field('private_key').includes('PRIVATE KEY-----')) throw new ConfigError(`${name}'s "private_key" must be a PEM private key`);
  const keyId = fields.private_key_id;
  return {
    projectId: field('project_id'),
    clientEmail: field('client_email'),
    privateKey: field('private_key'),
    privateKeyId: typeof keyId === 'string' && keyId !== '' ? keyId : undefined,
    tokenUri,
  };
}

function isHttpUrl(value: string): boolean {
  try {
    return ['http:', 'https:'].includes(new URL(value).protocol);
  } catch {
    return false;
  }
}

const PUSHER_URL_FORM = 'PUSHER_URL must be https://KEY:SECRET@HOST[:PORT]/apps/APP_ID';

/**
 * PUSHER_URL as Pusher's libraries read it. A malformed value is refused without being shown:
 * it holds the app's secret.
 */
function pusherApp(value: string | undefined, cluster: string | undefined): PusherApp | undefined {
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(`${PUSHER_URL_FORM} (the value is not shown: it holds the secret)`);
  }
  const appId = /^\/apps\/([A-Za-z0-9_-]{1,64})\/?$/.exec(url.pathname)?.[1];
  if (!['http:', 'https:'].includes(url.protocol) || url.username === '' || url.password === '' || appId === undefined || url.search !== '')
    throw new ConfigError(`${PUSHER_URL_FORM} (the value is not shown: it holds the secret)`);
  return {
    appId,
    key: decodeURIComponentSafe(url.username),
    secret: decodeURIComponentSafe(url.password),
    cluster: cluster ?? /^api-([a-z0-9-]+)\.pusher\.com$/i.exec(url.hostname)?.[1] ?? null,
    host: url.hostname,
    port: url.port === '' ? undefined : Number(url.port),
    useTLS: url.protocol === 'https:',
  };
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}

const DEFAULT_DATABASE_URL = 'sqlite:./data/souk.db';

/**
 * The database as the store opens it: its URL, the URL as messages show it (password masked), and
 * whether a missing SQLite folder may be created, which only the default's may: a folder the
 * operator named and mistyped would otherwise become a new, empty marketplace with a new API key.
 */
export function databaseTarget(config: Pick<Config, 'databaseUrl'>): { url: string; shown: string; createSqliteFolder: boolean } {
  const url = config.databaseUrl;
  return { url, shown: maskUrlSecrets(url), createSqliteFolder: url === DEFAULT_DATABASE_URL };
}

/**
 * The declarations, in the order `souk config` and docs/configuration.md list them. A nested object is a
 * group of the typed Config (config.db.poolSize is DB_POOL_SIZE).
 */
const SETTINGS = {
  port,
  host,
  databaseUrl: setting(
    'DATABASE_URL',
    DEFAULT_DATABASE_URL,
    (_raw, env) => {
      const value = given(env, 'DATABASE_URL') ?? DEFAULT_DATABASE_URL;
      if (!/^(sqlite:.+|postgres(ql)?:\/\/.+|mysql:\/\/.+)$/.test(value)) {
        throw new ConfigError('DATABASE_URL must be sqlite:PATH, postgres://user@host:port/db or mysql://user@host:port/db');
      }
      return value;
    },
    {
      meaning:
        "`sqlite:PATH` (an embedded SQLite file, created in a folder that exists; only the default's folder `./data` is created too), `postgres://user:password@host:port/db`, or `mysql://user:password@host:port/db`: a WordPress site's own MySQL or MariaDB database, served from the Classified Listing plugin's tables (see docs/running-beside-wordpress.md).",
      kind: 'url',
      print: maskUrlSecrets,
    },
  ),
  db: {
    poolSize: integer('DB_POOL_SIZE', 10, 1, 1000, { meaning: 'PostgreSQL and MySQL: most connections in the pool (1 to 1000).' }),
    statementTimeoutMs: integer('DB_STATEMENT_TIMEOUT_MS', 5000, 100, 600_000, {
      meaning:
        'Longest a statement may run (PostgreSQL `statement_timeout`; on MySQL, how long a statement waits for a row lock, in whole seconds); on SQLite, how long to wait for a locked database. 100 to 600000.',
    }),
    connectTimeoutMs: integer('DB_CONNECT_TIMEOUT_MS', 3000, 100, 600_000, {
      meaning: 'PostgreSQL and MySQL: longest wait for a connection before the request is answered 503 (100 to 600000).',
    }),
    preparedStatements: flag('DB_PREPARED_STATEMENTS', true, {
      meaning:
        "PostgreSQL only: send the request path's queries as named statements, parsed and planned once per connection. Set `false` behind a pooler that moves a session's statements between server connections (PgBouncer in transaction mode, unless 1.21 or newer with `max_prepared_statements` set).",
    }),
    joinStatements: flag('DB_JOIN_STATEMENTS', true, {
      meaning:
        "PostgreSQL only, with named statements: in a transaction, send BEGIN and the writer's lock with the first statement, and the writes whose answer nobody reads with the next one, as one message that runs the named statements by `EXECUTE`. Set `false` behind PgBouncer 1.21 or newer in transaction mode with `max_prepared_statements` set: it tracks the statements sent by name, not an `EXECUTE`.",
    }),
    wordpressTablePrefix: text('WORDPRESS_TABLE_PREFIX', 'wp_', {
      meaning:
        "MySQL only: the WordPress site's table prefix (`$table_prefix` in wp-config.php). Souk's own tables there are `{prefix}souk_...`.",
      check: (value) => (/^[A-Za-z0-9_]{1,32}$/.test(value) ? undefined : `must be letters, digits and _ (at most 32), got "${value}"`),
    }),
    cacheMb: integer('DB_CACHE_MB', 16, 1, 65_536, {
      meaning:
        "SQLite only: SQLite's page cache, in MB (1 to 65536). It fills up to this size and counts in full towards Souk's memory. A larger one keeps more of the conversations in memory when they outgrow it.",
    }),
    mmapMb: integer('DB_MMAP_MB', 0, 0, 1_048_576, {
      meaning:
        "SQLite only: how much of the database file, in MB, SQLite reads by mapping it into memory (0, the default: none; up to 1048576). Those reads make no system call and keep no second copy: the pages are the system's file cache, counted in Souk's resident memory once read and given back under memory pressure. For a file much larger than `DB_CACHE_MB`, its size or more (docs/operations.md).",
    }),
  },
  apiPrefix: setting(
    'API_PREFIX',
    '/wp-json/rtcl',
    (raw) => {
      // Set but empty is a real choice here: the interface served at {base_url}/v1.
      const value = raw ?? '/wp-json/rtcl';
      if (!/^(\/[A-Za-z0-9._~-]+)*$/.test(value))
        throw new ConfigError(`API_PREFIX must be empty or a path like /wp-json/rtcl, got "${value}"`);
      return value;
    },
    { meaning: 'Path before `/v1`: `{api_base}` is `{base_url}{API_PREFIX}/v1`. Empty or a path such as `/api`.' },
  ),
  serverApiPrefix: setting(
    'SERVER_API_PREFIX',
    '/souk/v1',
    (raw) => {
      const value = raw ?? '/souk/v1';
      if (!/^(\/[A-Za-z0-9._~-]+)+$/.test(value)) throw new ConfigError(`SERVER_API_PREFIX must be a path like /souk/v1, got "${value}"`);
      return value;
    },
    {
      meaning:
        "Path of the server API (docs/server-api.md), for a marketplace's own back end with a server key: `{base_url}{SERVER_API_PREFIX}/users/{id}`. A path such as `/souk/v1`; it must not be the apps' `{api_base}`.",
    },
  ),
  serverApiImportLimit: integer('SERVER_API_IMPORT_LIMIT', 64 * 1024 * 1024, 1024, 1024 * 1024 * 1024, {
    shownDefault: '`67108864` (64 MiB)',
    meaning:
      'Largest document `POST {SERVER_API_PREFIX}/import` takes, in bytes (about 100,000 listings); larger gets 413 `PAYLOAD_TOO_LARGE`. The other server API routes take `BODY_LIMIT`. 1024 to 1073741824.',
  }),
  auditRetentionDays: integer('AUDIT_RETENTION_DAYS', 400, 1, 36_500, {
    meaning:
      'Days the audit log keeps a row (docs/server-api.md, "Audit log"); older rows are deleted by every server at start and then daily. 1 to 36500.',
  }),
  consoleEnabled: flag('CONSOLE_ENABLED', true, {
    meaning:
      'Serve the staff console at `/console` (docs/console.md): server-rendered pages for the staff that `souk staff add` makes. `false`: `/console` answers 404.',
  }),
  consoleIdleTimeoutS: integer('CONSOLE_IDLE_TIMEOUT_S', 900, 60, 43_200, {
    meaning:
      'Seconds a console session lasts without a request; then the member signs in again. A session lasts 12 hours at most however active. 60 to 43200.',
  }),
  consoleUrl: setting(
    'CONSOLE_URL',
    undefined,
    (_raw, env) => {
      const h = host.parse(env);
      const value = given(env, 'CONSOLE_URL') ?? `http://${h.includes(':') ? `[${h}]` : h}:${port.parse(env)}/console`;
      if (!isHttpUrl(value)) throw new ConfigError(`CONSOLE_URL must be an absolute http(s) address, got "${maskUrlSecrets(value)}"`);
      return value.replace(/\/+$/, '');
    },
    {
      shownDefault: '`http://HOST:PORT/console`',
      meaning: "The console's public address, as `souk staff add` prints its set-up links (`{CONSOLE_URL}/setup/...`). Absolute http(s).",
      kind: 'url',
      print: maskUrlSecrets,
    },
  ),
  siteUrl: setting(
    'SITE_URL',
    undefined,
    (_raw, env) => {
      const h = host.parse(env);
      const value = given(env, 'SITE_URL') ?? `http://${h.includes(':') ? `[${h}]` : h}:${port.parse(env)}`;
      if (!isHttpUrl(value)) throw new ConfigError(`SITE_URL must be an absolute http(s) address, got "${maskUrlSecrets(value)}"`);
      return value.replace(/\/+$/, '');
    },
    {
      shownDefault: '`http://HOST:PORT`',
      meaning: 'Public address of the site, used in listing addresses (`{site_url}`). Absolute http(s).',
      kind: 'url',
      print: maskUrlSecrets,
    },
  ),
  siteTimezone: text('SITE_TIMEZONE', 'UTC', {
    meaning: 'IANA time zone of the `YYYY-MM-DD HH:MM:SS` times in replies, e.g. `Europe/Paris`.',
    check: (value) => (isTimeZone(value) ? undefined : `must be an IANA time zone such as UTC or Europe/Paris, got "${value}"`),
  }),
  listingUrlTemplate: text('LISTING_URL_TEMPLATE', '{site_url}/listing/{slug}/', {
    meaning: 'Public address of a listing; must contain `{slug}` or `{id}`.',
    check: (value) => (value.includes('{slug}') || value.includes('{id}') ? undefined : 'must contain {slug} or {id}'),
  }),
  chatReplyFormat: oneOf('CHAT_REPLY_FORMAT', 'current', ['current', 'classic'] as const, {
    meaning:
      'Which generation of replies the apps get (docs/routes.md, "Two generations of reply"): `current` (Classified Listing 4.x) or `classic` (2.x, the shapes the public React Native and Flutter apps parse). It shapes `GET my/chat`, `GET my/chat/check` and `GET my/chat/conversation` (docs/routes.md) and the items of `GET my/favourites` (classic: no `author` nor `tags`; `created_at_gmt` and `store` added).',
  }),
  /** Overrides of the secrets stored in the database settings (D9). */
  apiKey: secret('API_KEY', {
    shownDefault: '*(unset: the stored key)*',
    meaning:
      'The `X-API-KEY` every request needs, overriding the one stored in the database. At least 16 characters. Secret. Or `API_KEY_FILE`: a file holding it (one trailing newline ignored), not both.',
  }),
  jwtSecret: secret('JWT_SECRET', {
    shownDefault: '*(unset: the stored secret)*',
    meaning:
      'HS256 secret that signs and verifies tokens, overriding the stored one. At least 16 characters. Secret. Or `JWT_SECRET_FILE`: a file holding it (one trailing newline ignored), not both.',
  }),
  tokenMacKey: secret('TOKEN_MAC_KEY', {
    shownDefault: '*(unset: the stored key)*',
    meaning:
      'Key of the mark (`jti`, an HMAC-SHA256 of the claims) every token Souk issues carries, overriding the stored one; Souk refuses a token without it, whoever signed it (see "Tokens"). Set it alike on every instance, and never share it with a WordPress site. Changing it signs everyone out. At least 16 characters. Secret. Or `TOKEN_MAC_KEY_FILE`: a file holding it (one trailing newline ignored), not both.',
  }),
  bodyLimit: integer('BODY_LIMIT', 256 * 1024, 1024, 64 * 1024 * 1024, {
    meaning:
      'Largest request body in bytes (256 KiB: the largest legitimate body, every field at its limit and escaped at worst, is 224 KiB); larger bodies get 413 `PAYLOAD_TOO_LARGE`. 1024 to 67108864.',
  }),
  textMaxLength: integer('TEXT_MAX_LENGTH', 5000, 1, 1_000_000, {
    meaning: 'Longest message `text` in characters; longer gets 400 `BADREQUEST`. 1 to 1000000.',
  }),
  messageEditWindowS: integer('MESSAGE_EDIT_WINDOW_S', 900, 0, 7 * 86_400, {
    shownDefault: '`900` (15 min)',
    meaning:
      'How long after sending it a sender may correct a message (`PATCH my/chat/message`, docs/chat-plus.md); later gets 403. 0 turns corrections off. 0 to 604800.',
  }),
  messageEditAfterRead: flag('MESSAGE_EDIT_AFTER_READ', false, {
    meaning:
      'Whether a sender may still correct a message the other participant has read (within `MESSAGE_EDIT_WINDOW_S`); `false`: once read, 403.',
  }),
  chatRetentionDays: setting(
    'CHAT_RETENTION_DAYS',
    undefined,
    (_raw, env) => {
      const value = given(env, 'CHAT_RETENTION_DAYS');
      if (value === undefined) return undefined;
      if (!/^\d+$/.test(value.trim()) || Number(value) < 1 || Number(value) > 36_500) {
        throw new ConfigError(`CHAT_RETENTION_DAYS must be an integer from 1 to 36500, got "${value}"`);
      }
      return Number(value);
    },
    {
      shownDefault: '*(unset: kept for ever)*',
      meaning:
        "Conversations with no message for this many days are deleted with their messages, as the plugin's daily clean-up (`remove_inactive_conversation_duration`) does: by every server at start and then daily, in batches, one server at a time. 1 to 36500. The default of `chat_retention_days`, which an owner sets from the console or `souk settings set` (docs/console.md) and which then holds instead.",
      print: (value) => (value === undefined ? '' : String(value)),
    },
  ),
  currencyCode: text('CURRENCY_CODE', 'USD', {
    meaning:
      "ISO 4217 code of the marketplace's currency, published by `GET config` (`currency.id`) beside `CURRENCY_SYMBOL`; on a WordPress site, the site's own.",
    check: (value) => (/^[A-Z]{3}$/.test(value) ? undefined : `must be three capital letters such as USD or EUR, got "${value}"`),
  }),
  price: {
    currencySymbol: text('CURRENCY_SYMBOL', '&#36;', { meaning: 'Currency symbol in the price HTML (`amount`).' }),
    position: oneOf('CURRENCY_POSITION', 'left', POSITIONS, {
      meaning: 'Where the symbol goes: `left`, `right`, `left_space` or `right_space`.',
    }),
    decimals: integer('PRICE_DECIMALS', 2, 0, 8, { meaning: 'Decimals shown in `amount` (0 to 8).' }),
    // Set but empty means no separator.
    thousandsSeparator: setting('PRICE_THOUSANDS_SEPARATOR', ',', (raw) => raw ?? ',', {
      meaning: 'Thousands separator in `amount`; may be set empty for none.',
    }),
    decimalSeparator: text('PRICE_DECIMAL_SEPARATOR', '.', { meaning: 'Decimal separator in `amount`.' }),
  },
  settingsRefreshMs: integer('SETTINGS_REFRESH_MS', 2000, 100, 60_000, {
    meaning:
      'How often a server re-reads the settings stored in the database (API key rotation, REST switch, catalog changes that drop cached users). 100 to 60000.',
  }),
  userCacheSize: integer('USER_CACHE_SIZE', 100_000, 0, 10_000_000, {
    meaning:
      "Users kept in memory once looked up (a token's user, listings' owners, the other side of each conversation), until the catalog changes: about 430 bytes of heap each, so 43 MB when the default's 100000 are kept. A list shows up to 20 users; those not kept are read from the database. 0 keeps none; up to 10000000.",
  }),
  tokenCacheSize: integer('TOKEN_CACHE_SIZE', 100_000, 0, 10_000_000, {
    meaning:
      "Tokens kept in memory once verified, so that a token seen again is not verified again (its signature, its claims, its digest: about 40 µs), until it expires or the JWT secret changes: about 700 bytes of heap each for a token of 270 characters, so 70 MB when the default's 100000 are kept. Their texts add up to at most this many tokens of 300 characters: longer ones leave room for fewer. Failed tokens are never kept. 0 keeps none; up to 10000000.",
  }),
  tokenMaxTtlS: integer('TOKEN_MAX_TTL_S', 30 * 86_400, 60, 10 * 365 * 86_400, {
    shownDefault: '`2592000` (30 days)',
    meaning:
      'Longest token lifetime, in seconds: a token whose `exp - iat`, or whose `exp` minus now, is longer is refused (401 `INVALID_TOKEN`), and `souk token --ttl` refuses to issue one. 60 to 315360000.',
  }),
  loginTokenTtlS: integer('LOGIN_TOKEN_TTL_S', 86_400, 60, 10 * 365 * 86_400, {
    shownDefault: '`86400` (1 day)',
    meaning: 'Lifetime of a token issued by `POST login`, in seconds; `TOKEN_MAX_TTL_S` when that is shorter.',
  }),
  acceptWordpressTokens: flag('ACCEPT_WORDPRESS_TOKENS', false, {
    meaning:
      'Also accept tokens a WordPress site with Classified Listing issued (`sub` `"123456789"`, the user by the login in `name`), signed with `JWT_SECRET`. Unsafe: anyone who knows the plugin\'s public secret can forge them (see docs/running-beside-wordpress.md); for a move, then back to `false`.',
  }),
  passwordConcurrency: integer('PASSWORD_CONCURRENCY', 0, 0, 1024, {
    shownDefault: '`0` (as many as the cores)',
    meaning:
      'Password threads: verifications (`POST login`) and hashes computed at once, each on a thread of its own; 0: one a core. They run at `PASSWORD_NICE`, so they use the cores that the other requests leave idle.',
  }),
  passwordNice: integer('PASSWORD_NICE', 19, 0, 19, {
    meaning:
      "The password threads' nice value on Linux (19: the lowest priority, 0: the process's own): a burst of sign-ins then waits for idle cores instead of slowing every other request. Elsewhere the threads keep the process's priority.",
  }),
  signInQueue: integer('SIGN_IN_QUEUE', 64, 0, 100_000, {
    meaning:
      'Sign-ins that may wait for a verification thread; beyond them `POST login` answers 503 `SERVICE_UNAVAILABLE` with `Retry-After: 1` (nothing is counted against the username).',
  }),
  logLevel: oneOf('LOG_LEVEL', 'info', LOG_LEVELS, {
    meaning: '`fatal`, `error`, `warn`, `info`, `debug`, `trace` or `silent`. At `info`, one line per request.',
  }),
  logPretty: flag('LOG_PRETTY', false, {
    meaning: '`true` writes readable single-line logs (pino-pretty) instead of JSON lines; for development.',
  }),
  metricsToken: secret('METRICS_TOKEN', {
    shownDefault: '*(unset)*',
    meaning:
      'When set, `GET /metrics` is served on the API port (and on `METRICS_PORT`) to scrapes sending `Authorization: Bearer <METRICS_TOKEN>`. Unset: not on the API port (404). At least 16 characters. Secret. Or `METRICS_TOKEN_FILE`: a file holding it (one trailing newline ignored), not both.',
  }),
  metricsPort: integer('METRICS_PORT', 0, 0, 65535, {
    shownDefault: '`0` (off)',
    meaning: 'A separate port that serves only `GET /metrics`, on `METRICS_HOST`: the way to scrape without a token. `0`: no metrics port.',
  }),
  metricsHost: text('METRICS_HOST', '127.0.0.1', {
    meaning: 'Address the metrics port listens on; loopback by default, so only the same host can scrape it.',
  }),
  corsOrigins: setting('CORS_ORIGINS', undefined, (_raw, env) => origins(given(env, 'CORS_ORIGINS') ?? ''), {
    shownDefault: '*(empty: CORS off)*',
    meaning:
      'Comma-separated browser origins allowed to call the service, e.g. `https://app.example,http://localhost:5173`. Exact origins only; `*` is refused.',
    print: (value) => value.join(','),
  }),
  http: {
    maxHeaderSize: integer('MAX_HEADER_SIZE', 16 * 1024, 8 * 1024, 1024 * 1024, {
      meaning:
        'Largest request head (request line and headers) in bytes, 16 KiB (a token is at most 4096 characters); over it: 431 shape B. 8192 to 1048576.',
    }),
    maxConnections: integer('MAX_CONNECTIONS', 10_000, 1, 1_000_000, {
      meaning: 'Most open client connections on the API port; a connection beyond it is closed at once, unanswered. 1 to 1000000.',
    }),
    headersTimeoutMs: integer('HEADERS_TIMEOUT_MS', 10_000, 500, 3_600_000, {
      meaning: 'Time a client has to send the request head; slower clients are cut off (408 shape B). At most `REQUEST_TIMEOUT_MS`.',
    }),
    requestTimeoutMs: integer('REQUEST_TIMEOUT_MS', 30_000, 1000, 3_600_000, {
      meaning: 'Time a client has to send the whole request, body included. 1000 to 3600000.',
    }),
    keepAliveTimeoutMs: integer('KEEP_ALIVE_TIMEOUT_MS', 72_000, 1000, 3_600_000, {
      meaning: "An idle keep-alive connection is closed after this (above common load balancers' 60 s).",
    }),
    maxConnectionsPerAddress: setting('MAX_CONNECTIONS_PER_ADDRESS', undefined, (_raw, env) => connectionsPerAddress(env), {
      shownDefault: 'a quarter of `MAX_CONNECTIONS`, at most `256`',
      meaning:
        'Most open connections from one client address (an IPv6 address counts with its /64); one beyond it is closed at once, unanswered. Event streams count: behind a carrier NAT many app users share an address, so raise it (or set `0`) when many users keep streams open. Connections from a `TRUST_PROXY` address are not counted (with `TRUST_PROXY=true`, none are): the proxy is one address for all its clients. `0`: no cap.',
    }),
    idleUnauthenticatedMs: integer('IDLE_UNAUTHENTICATED_TIMEOUT_MS', 5000, 100, 3_600_000, {
      meaning:
        'An idle keep-alive connection that has not yet carried a request signed in with a token is closed after this, instead of `KEEP_ALIVE_TIMEOUT_MS`. 100 to 3600000.',
    }),
  },
  shutdownTimeoutMs: integer('SHUTDOWN_TIMEOUT_MS', 10_000, 0, 3_600_000, {
    meaning: 'On SIGTERM/SIGINT: time in-flight requests get to finish before they are cut and the process exits 1.',
  }),
  abuse: {
    conversationsPerHour: integer('NEW_CONVERSATIONS_PER_HOUR', 20, 0, 1_000_000, {
      meaning:
        'Conversations one user may start per hour (fixed windows); one more gets 429 `TOO_MANY_REQUESTS` with `Retry-After`, unless the start writes in a conversation of theirs already open. Counted as the rate limits are (in the process, or in Redis with `REDIS_URL`). 0 turns it off. The default of `new_conversations_per_hour`, which an owner sets from the console or `souk settings set` (docs/console.md) and which then holds instead.',
    }),
    messagesPerMinute: integer('MESSAGES_PER_MINUTE', 30, 0, 1_000_000, {
      meaning:
        "Messages one user may send per minute, across conversations, a start's first message included (fixed windows; a retry with a stored `temp_id` does not count); one more gets 429 `TOO_MANY_REQUESTS` with `Retry-After`. Counted as the rate limits are. 0 turns it off. The default of `messages_per_minute`, which an owner sets from the console or `souk settings set` (docs/console.md) and which then holds instead.",
    }),
    reportsPerHour: integer('REPORTS_PER_HOUR', 10, 0, 1_000_000, {
      meaning:
        'Reports one user may make per hour (`listing/report` and `my/chat/report` together, fixed windows; a repeat of a report still open stores nothing and does not count); one more gets 429 `TOO_MANY_REQUESTS` with `Retry-After`. Counted as the rate limits are. 0 turns it off. The default of `reports_per_hour`, which an owner sets from the console or `souk settings set` (docs/console.md) and which then holds instead.',
    }),
    blockChangesPerHour: integer('BLOCK_CHANGES_PER_HOUR', 30, 0, 1_000_000, {
      meaning:
        'Changes one user may ask of their block lists per hour (`POST` and `DELETE` of `privacy/user/block` and `privacy/listing/block`, refused ones too: an answer tells whether an id exists); one more gets 429 `TOO_MANY_REQUESTS` with `Retry-After`. Counted as the rate limits are. 0 turns it off. The default of `block_changes_per_hour`, which an owner sets from the console or `souk settings set` (docs/console.md) and which then holds instead.',
    }),
  },
  offers: {
    ttlS: integer('OFFER_TTL_S', 172_800, 1, 30 * 86_400, {
      shownDefault: '`172800` (48 hours)',
      meaning:
        'How long an offer (`POST my/chat/offer`) may be answered, in seconds; after that it is expired and `POST my/chat/offer/respond` refuses it (409). 1 to 2592000.',
    }),
    maxRatio: integer('OFFER_MAX_RATIO', 10, 1, 1_000_000, {
      meaning: "An offer's amount is at most this many times the listing's price, when the listing has one (400 over it).",
    }),
    perConversationPerDay: integer('OFFERS_PER_CONVERSATION_PER_DAY', 10, 1, 1_000_000, {
      meaning:
        'Offers (counter-offers included) one participant may make in one conversation in 24 hours; one more gets 429 `TOO_MANY_REQUESTS`.',
    }),
  },
  rateLimit: {
    perKey: integer('RATE_LIMIT_PER_KEY', 0, 0, 1_000_000_000, {
      shownDefault: '`0` (off)',
      meaning:
        'Requests per window per API key, counted once the token verified (one key per installation, so this caps all traffic); 429 `TOO_MANY_REQUESTS` over it.',
    }),
    perUser: integer('RATE_LIMIT_PER_USER', 6000, 0, 1_000_000_000, {
      meaning: 'Requests per window per authenticated user; 0 turns it off.',
    }),
    windowMs: integer('RATE_LIMIT_WINDOW_MS', 60_000, 100, 86_400_000, { meaning: 'The rate-limit window (fixed windows).' }),
    redisUrl: url('REDIS_URL', undefined, /^rediss?:\/\/.+/, 'redis://host:port[/db] or rediss://...', {
      shownDefault: '*(unset: per process)*',
      meaning:
        '`redis://host:port[/db]`: rate-limit counters shared by every instance through Redis; while it does not answer, `RATE_LIMIT_REDIS_FAILURE` applies.',
    }),
    redisPrefix: text('RATE_LIMIT_REDIS_PREFIX', 'souk:rl:', { meaning: 'Prefix of the Redis counter keys.' }),
    redisFailure: oneOf('RATE_LIMIT_REDIS_FAILURE', 'open', ['open', 'closed'] as const, {
      meaning:
        'While Redis does not answer (down, or slower than 250 ms): `open` lets requests through uncounted, `closed` answers them 503 `SERVICE_UNAVAILABLE`. Either way the outage is logged once, and `souk_rate_limit_store_up` is 0.',
    }),
    perServerKey: integer('SERVER_API_RATE_LIMIT', 60_000, 0, 1_000_000_000, {
      meaning:
        'Requests per window (`RATE_LIMIT_WINDOW_MS`) per server key on the server API (docs/server-api.md); 429 `TOO_MANY_REQUESTS` over it. A key may be used from many addresses. 0 turns it off.',
    }),
    authFailures: integer('RATE_LIMIT_AUTH_FAILURES', 100, 0, 1_000_000_000, {
      meaning:
        'Failed authentications (missing or wrong API key, bad or expired token) per window per client address (IPv6: per /64); over it, 429 `TOO_MANY_REQUESTS` before any credential is read. 0 turns it off.',
    }),
    loginFailuresPerUsername: integer('LOGIN_FAILURES_PER_USERNAME', 5, 0, 1_000_000_000, {
      meaning:
        'Failed sign-ins (`POST login`) per account (whichever of its names is sent; a name nobody has counts as one) from one client address (IPv6: per /64) per `LOGIN_FAILURE_WINDOW_MS`; beyond them every attempt for that account from that address, right ones too, gets 429 `TOO_MANY_REQUESTS` until the window ends. Other addresses are not held up. A success clears the count. 0 turns it off.',
    }),
    loginFailuresPerAccount: integer('LOGIN_FAILURES_PER_ACCOUNT', 30, 0, 1_000_000_000, {
      meaning:
        'Failed sign-ins per account from every address together per `LOGIN_FAILURE_WINDOW_MS`; beyond them only an address the account signed in from within `LOGIN_KNOWN_ADDRESS_S` may still try (its own limit above applies), others get 429. 0 turns it off.',
    }),
    loginKnownAddressS: integer('LOGIN_KNOWN_ADDRESS_S', 2_592_000, 60, 365 * 86_400, {
      shownDefault: '`2592000` (30 days)',
      meaning:
        'How long an address (IPv6: its /64) a user signed in from stays known to their account, and so passes `LOGIN_FAILURES_PER_ACCOUNT`. Without `REDIS_URL` it is remembered per process, at most `RATE_LIMIT_TRACKED_ADDRESSES` of them.',
    }),
    loginFailuresPerAddress: integer('LOGIN_FAILURES_PER_ADDRESS', 20, 0, 1_000_000_000, {
      meaning:
        'Failed sign-ins per client address (IPv6: per /64) per `LOGIN_FAILURE_WINDOW_MS`; beyond them, 429 as above. 0 turns it off.',
    }),
    loginFailureWindowMs: integer('LOGIN_FAILURE_WINDOW_MS', 900_000, 1000, 86_400_000, {
      shownDefault: '`900000` (15 min)',
      meaning: 'The window of the three sign-in limits (fixed windows, shared through Redis with `REDIS_URL`).',
    }),
    trackedAddresses: integer('RATE_LIMIT_TRACKED_ADDRESSES', 50_000, 1, 100_000_000, {
      meaning:
        'Without Redis: most client addresses whose failed authentications are remembered; beyond it the oldest window is forgotten. 1 to 100000000.',
    }),
  },
  trustProxy: setting('TRUST_PROXY', 'false', (_raw, env) => trustedProxies(given(env, 'TRUST_PROXY') ?? 'false'), {
    meaning:
      'Whose `X-Forwarded-For` gives the client address (for `RATE_LIMIT_AUTH_FAILURES`): `false` (nobody: the connecting address), `true` (any sender: only behind a proxy that overwrites the header), or a comma list of proxy addresses and CIDRs such as `10.0.0.0/8,::1`.',
    print: (value) => (typeof value === 'boolean' ? String(value) : value.join(',')),
  }),
  events: {
    retentionS: integer('EVENTS_RETENTION_S', 86_400, 60, 30 * 86_400, {
      shownDefault: '`86400` (24 h)',
      meaning:
        "How long the event log keeps a user's events for `GET my/events` to replay after `Last-Event-ID`; a client that missed older ones gets a `reset` event (reload). 60 to 2592000.",
    }),
    heartbeatMs: integer('EVENTS_HEARTBEAT_MS', 15_000, 1000, 300_000, {
      meaning: 'How often an open event stream gets a comment line, so that proxies do not close it as idle. 1000 to 300000.',
    }),
    bufferBytes: integer('EVENTS_BUFFER_BYTES', 256 * 1024, 4096, 64 * 1024 * 1024, {
      meaning:
        'Most bytes an event stream may have waiting for a slow client; beyond them the stream is closed, and the client resumes with `Last-Event-ID`. 4096 to 67108864.',
    }),
    streamsPerUser: integer('EVENTS_STREAMS_PER_USER', 8, 1, 1000, {
      meaning: "Most open event streams per user on one instance; a new one beyond them closes the user's oldest. 1 to 1000.",
    }),
    ticketTtlS: integer('EVENTS_TICKET_TTL_S', 30, 5, 600, {
      meaning: "Lifetime of a single-use ticket from `POST my/events/ticket` (for a browser's `EventSource`), in seconds. 5 to 600.",
    }),
    pollMs: integer('EVENTS_POLL_MS', 250, 20, 60_000, {
      meaning:
        "MySQL only: how often an instance with event streams open reads the event log for the events other instances wrote (its own are sent at once). A stream gets another instance's event within about this long. 20 to 60000.",
    }),
  },
  webhooks: {
    urls: setting('WEBHOOK_URLS', undefined, (_raw, env) => webhookUrls(given(env, 'WEBHOOK_URLS') ?? ''), {
      shownDefault: '*(empty: no webhooks)*',
      meaning:
        'Comma-separated http(s) addresses that get every event (and `favourite.added` / `favourite.removed`, `report.created`) POSTed as JSON, signed per Standard Webhooks, at least once (docs/events.md, "Webhooks"). Needs `WEBHOOK_SECRET`.',
      kind: 'url',
      print: (value) => value.map(maskUrlSecrets).join(','),
    }),
    secret: setting(
      'WEBHOOK_SECRET',
      undefined,
      (_raw, env) => {
        const value = given(env, 'WEBHOOK_SECRET');
        if (value !== undefined && !/^whsec_[A-Za-z0-9+/]{32,}={0,2}$/.test(value))
          throw new ConfigError('WEBHOOK_SECRET must be whsec_ followed by at least 24 bytes in base64');
        return value;
      },
      {
        shownDefault: '*(unset)*',
        meaning:
          'The Standard Webhooks signing secret: `whsec_` and base64 (24 to 64 random bytes; `openssl rand -base64 32`). Secret: never printed or logged.',
        kind: 'secret',
        print: (value) => (value === undefined ? '' : '****'),
      },
    ),
    retryForS: integer('WEBHOOK_RETRY_FOR_S', 86_400, 1, 30 * 86_400, {
      shownDefault: '`86400` (24 h)',
      meaning:
        'How long a delivery is retried, with exponential backoff, before it is kept as failed (`souk webhooks retry` sends it again).',
    }),
    retryBaseMs: integer('WEBHOOK_RETRY_BASE_MS', 5000, 10, 3_600_000, {
      meaning: 'The first retry waits this long; each next one twice as long, at most an hour.',
    }),
    timeoutMs: integer('WEBHOOK_TIMEOUT_MS', 10_000, 100, 600_000, {
      meaning: 'How long a receiver has to answer a delivery; no 2xx answer in time is a failed attempt.',
    }),
    retentionS: integer('WEBHOOK_RETENTION_S', 604_800, 3600, 365 * 86_400, {
      shownDefault: '`604800` (7 days)',
      meaning:
        'How long a delivered webhook is kept in the outbox (for `souk webhooks list` and `replay`), from when it was written; older ones are deleted at start and then hourly: they carry what users wrote. Pending and failed deliveries stay. 3600 to 31536000.',
    }),
  },
  push: {
    enabled: flag('PUSH_NOTIFICATIONS', true, {
      meaning:
        'Push notifications through Expo (docs/events.md, "Push notifications"): `push-notification/register` stores devices and a new message is pushed to its recipient. `false`: those routes answer 404 and nothing is pushed.',
    }),
    expoUrl: setting(
      'EXPO_PUSH_URL',
      'https://exp.host/--/api/v2/push/send',
      (_raw, env) => {
        const value = given(env, 'EXPO_PUSH_URL') ?? 'https://exp.host/--/api/v2/push/send';
        if (!isHttpUrl(value)) throw new ConfigError(`EXPO_PUSH_URL must be an absolute http(s) address, got "${maskUrlSecrets(value)}"`);
        return value;
      },
      {
        meaning: "Expo's push API, where the pushes are POSTed (a local receiver in tests).",
        kind: 'url',
        print: maskUrlSecrets,
      },
    ),
    accessToken: secret('EXPO_ACCESS_TOKEN', {
      shownDefault: '*(unset)*',
      meaning:
        'An Expo access token, sent as `Authorization: Bearer` when the Expo project has enhanced push security on. Secret: never printed or logged. Or `EXPO_ACCESS_TOKEN_FILE`.',
    }),
    appScheme: text('PUSH_APP_SCHEME', 'rtcl', {
      meaning:
        "The app's URL scheme (`expo.scheme` in its app.json): a push's `data.url` is `<scheme>://conversation/<con_id>/<listing_id>`.",
      check: (value) => (/^[a-z][a-z0-9+.-]{0,63}$/i.test(value) ? undefined : `must be a URL scheme such as myapp, got "${value}"`),
    }),
    devicesPerUser: integer('PUSH_DEVICES_PER_USER', 10, 1, 100, {
      meaning: "Most devices (push tokens) one user may have; registering one more drops the user's least recently registered. 1 to 100.",
    }),
    retryForS: integer('PUSH_RETRY_FOR_S', 3600, 1, 86_400, {
      shownDefault: '`3600` (1 h)',
      meaning:
        'How long a push that Expo did not take (no answer, 429, 5xx) is retried, with exponential backoff, before it is kept as failed: a late push about an old message helps nobody. 1 to 86400.',
    }),
    retryBaseMs: integer('PUSH_RETRY_BASE_MS', 5000, 10, 3_600_000, {
      meaning: 'The first retry of a push waits this long; each next one twice as long, at most an hour.',
    }),
    timeoutMs: integer('PUSH_TIMEOUT_MS', 10_000, 100, 600_000, {
      meaning: "How long Expo's push API has to answer; no answer in time is a failed attempt.",
    }),
    receiptDelayS: integer('PUSH_RECEIPT_DELAY_S', 900, 1, 86_400, {
      shownDefault: '`900` (15 min)',
      meaning:
        'How long after Expo took a push its receipt is asked for (`getReceipts` beside `EXPO_PUSH_URL`); a device the receipt reports not registered (the app uninstalled) is dropped. 1 to 86400.',
    }),
    fcmServiceAccount: setting('FCM_SERVICE_ACCOUNT_JSON', undefined, (_raw, env) => fcmServiceAccount(env), {
      shownDefault: '*(unset: no FCM)*',
      meaning:
        'Firebase Cloud Messaging (docs/events.md, "Push notifications"): the Firebase project\'s service account key, the JSON text itself, or `FCM_SERVICE_ACCOUNT_FILE`: a file holding it (not both). Set: `push-notification/register` also takes FCM registration tokens, and Souk pushes to them through FCM HTTP v1, with an access token asked of the key\'s `token_uri`. Secret: shown as its `project_id` only.',
      kind: 'secret',
      print: (account) => (account === undefined ? '' : `project ${account.projectId} (key ****)`),
    }),
    fcmUrl: setting(
      'FCM_API_URL',
      'https://fcm.googleapis.com/v1/projects/{project_id}/messages:send',
      (_raw, env) => {
        const value = given(env, 'FCM_API_URL') ?? 'https://fcm.googleapis.com/v1/projects/{project_id}/messages:send';
        if (!isHttpUrl(value.replaceAll('{project_id}', 'p')))
          throw new ConfigError(`FCM_API_URL must be an absolute http(s) address, got "${maskUrlSecrets(value)}"`);
        return value;
      },
      {
        meaning: "FCM HTTP v1's send address; `{project_id}` becomes the service account's project (a local receiver in tests).",
        kind: 'url',
        print: maskUrlSecrets,
      },
    ),
  },
  pusher: {
    app: setting('PUSHER_URL', undefined, (_raw, env) => pusherApp(given(env, 'PUSHER_URL'), given(env, 'PUSHER_CLUSTER')), {
      shownDefault: "*(unset: no Pusher, or a WordPress site's own)*",
      meaning:
        "The Pusher Channels app Souk publishes the chat's live events to (docs/pusher.md): `https://KEY:SECRET@HOST[:PORT]/apps/APP_ID`, the form Pusher's libraries read (`https://KEY:SECRET@api-CLUSTER.pusher.com/apps/APP_ID`, or a self-hosted Pusher-protocol server). On a WordPress site the plugin's `rtcl_chat_settings` turn Pusher on or off and name the app, and PUSHER_URL names only where it is (its scheme, host and port). Its secret is never printed or logged.",
      kind: 'url',
      print: (value) =>
        value === undefined
          ? ''
          : `${value.useTLS ? 'https' : 'http'}://${value.key}:****@${value.host}${value.port ? `:${value.port}` : ''}/apps/${value.appId}`,
    }),
    cluster: text('PUSHER_CLUSTER', '', {
      shownDefault: '*(from the host `api-CLUSTER.pusher.com`)*',
      meaning:
        "The cluster `GET config` names (`chat.pusher.app_cluster`) when `PUSHER_URL`'s host is not `api-CLUSTER.pusher.com` (a self-hosted server).",
      check: (value) =>
        value === '' || /^[a-z0-9-]{1,64}$/i.test(value) ? undefined : `must be a cluster name such as eu or mt1, got "${value}"`,
    }),
    channels: oneOf('PUSHER_CHANNELS', 'public', ['public', 'private'] as const, {
      meaning:
        '`public`: the plugin\'s channels, `chat-user-{id}`, which its web chat and the 4.x apps listen to, and which anyone holding the app\'s key can read. `private`: `private-chat-user-{id}`, each authorized only for its user by `POST pusher/auth` (docs/pusher.md, "Private channels").',
    }),
    retryForS: integer('PUSHER_RETRY_FOR_S', 300, 1, 86_400, {
      shownDefault: '`300` (5 min)',
      meaning:
        'How long an event Pusher did not take (no answer, 429, 5xx) is retried, with exponential backoff, before it is kept as failed: a live event much later is noise. 1 to 86400.',
    }),
    retryBaseMs: integer('PUSHER_RETRY_BASE_MS', 1000, 10, 3_600_000, {
      meaning: 'The first retry of a Pusher event waits this long; each next one twice as long, at most an hour.',
    }),
    timeoutMs: integer('PUSHER_TIMEOUT_MS', 5000, 100, 600_000, {
      meaning: "How long Pusher's HTTP API has to answer; no answer in time is a failed attempt.",
    }),
  },
  files: {
    dir: setting('FILES_DIR', undefined, (_raw, env) => given(env, 'FILES_DIR') ?? defaultFilesDir(env), {
      shownDefault: '`files` beside the SQLite file; `./data/files` on PostgreSQL and MySQL',
      meaning:
        "Folder of the files uploaded with chat messages (docs/files.md), created when missing. Every instance on one PostgreSQL database must share it. On a WordPress site: the plugin's uploads folder, e.g. `/var/www/wp-content/uploads/classified-listing`, with `FILES_URL` its address.",
    }),
    url: setting(
      'FILES_URL',
      undefined,
      (_raw, env): string => {
        const value = given(env, 'FILES_URL') ?? `${SETTINGS.siteUrl.parse(env)}/files`;
        if (!isHttpUrl(value)) throw new ConfigError(`FILES_URL must be an absolute http(s) address, got "${maskUrlSecrets(value)}"`);
        return value.replace(/\/+$/, '');
      },
      {
        shownDefault: '`{SITE_URL}/files`',
        meaning:
          "Public address of `FILES_DIR`: attachments' URLs start with it. Souk serves the folder at `{base_url}/files/`; set it to the site's uploads address when the site's web server serves the folder.",
        kind: 'url',
        print: maskUrlSecrets,
      },
    ),
    s3: setting(
      'FILES_S3_URL',
      undefined,
      (_raw, env) => {
        const value = given(env, 'FILES_S3_URL');
        return value === undefined ? undefined : parseS3Url(value);
      },
      {
        shownDefault: '*(unset: a folder)*',
        meaning:
          'SQLite and PostgreSQL: keep chat files in an S3-compatible bucket instead of a folder, for several machines: `s3://KEY:SECRET@HOST[:PORT]/BUCKET[/PREFIX]`, with `?region=` (default `us-east-1`), `tls=false` for plain HTTP, `path_style=false` for `BUCKET.HOST` addresses (the default for `amazonaws.com`), `checksums=when_required` for a server that does not know the flexible checksums (CRC32, `aws-chunked` uploads). Without `KEY:SECRET@`, the AWS SDK finds credentials itself (`AWS_ACCESS_KEY_ID`, an instance role). See docs/files-s3.md. The secret is never printed.',
        kind: 'url',
        print: (value) =>
          value === undefined
            ? ''
            : `s3://${value.credentials ? `${value.credentials.accessKeyId}:****@` : ''}${value.endpoint.replace(/^https?:\/\//, '')}/${[value.bucket, value.prefix].filter(Boolean).join('/')}?region=${value.region}&tls=${value.endpoint.startsWith('https')}&path_style=${value.forcePathStyle}&checksums=${value.checksums}`,
      },
    ),
    s3PublicUrl: url('FILES_S3_PUBLIC_URL', undefined, /^https?:\/\/[^\s?#]+$/, 'an absolute http(s) address without query', {
      shownDefault: '*(unset: Souk serves the files)*',
      meaning:
        "With `FILES_S3_URL`: the public address of the bucket's keys (the bucket's own address, or a CDN in front of it), where the apps fetch files; unset, the addresses are `FILES_URL`'s and Souk serves them from the bucket, which then need not be public.",
    }),
    access: oneOf('FILES_ACCESS', 'public', ['public', 'participants'] as const, {
      meaning:
        "Who can read an uploaded file: `public`, anyone who has its address (the plugin's way; the address holds a 256-bit digest, so it cannot be guessed); `participants`, only through an address Souk gave a participant of its conversation, signed and expiring after `FILES_URL_TTL_S`. `participants` needs Souk to serve the files: `FILES_URL` at Souk's own `/files` (its default) and no `FILES_S3_PUBLIC_URL`. See docs/files.md.",
    }),
    urlTtlS: integer('FILES_URL_TTL_S', 86_400, 60, 30 * 86_400, {
      shownDefault: '`86400` (a day)',
      meaning:
        'With `FILES_ACCESS=participants`: how long a file address given to a participant works, in seconds (up to a 24th longer: rounded up, so that an address stays the same from one poll to the next). 60 to 2592000.',
    }),
    maxCount: integer('FILES_MAX_COUNT', 4, 1, 10, {
      meaning: 'Most files uploaded with one message (the plugin publishes 4); more refuse the message with 400. 1 to 10.',
    }),
    maxBytes: integer('FILES_MAX_BYTES', 5 * 1024 * 1024, 1024, 100 * 1024 * 1024, {
      shownDefault: '`5242880` (5 MB)',
      meaning: 'Largest uploaded file in bytes; a larger one refuses the message with 413. 1024 to 104857600.',
    }),
    types: setting(
      'FILES_TYPES',
      PLUGIN_FILE_TYPES.join(','),
      (_raw, env) => {
        const value = given(env, 'FILES_TYPES');
        if (value === undefined) return PLUGIN_FILE_TYPES;
        const types = value
          .split(',')
          .map((t) => t.trim().toLowerCase())
          .filter((t) => t !== '');
        const bad = types.find((t) => !/^[a-z]+\/[a-z0-9.+-]+$/.test(t));
        if (bad !== undefined || types.length === 0)
          throw new ConfigError(`FILES_TYPES must be MIME types separated by commas, got "${value}"`);
        return types;
      },
      {
        shownDefault:
          "the plugin's: JPEG, PNG, WebP, PDF, Word, Excel; and audio: M4A (`audio/mp4`), AAC, MP3 (`audio/mpeg`), Ogg, WebM (`audio/webm`)",
        meaning:
          "MIME types accepted in uploads, separated by commas, read from the file's bytes. Images among them are re-encoded; audio is stored as sent, its duration read (`FILES_AUDIO_MAX_S`).",
        print: (types) => types.join(','),
      },
    ),
    audioMaxS: integer('FILES_AUDIO_MAX_S', 300, 1, 86_400, {
      shownDefault: '`300` (5 min)',
      meaning:
        'Longest audio file accepted (a voice message), in seconds, as its container says; longer refuses the message with 413 and the reason. 1 to 86400.',
    }),
    imageMaxPx: integer('FILES_IMAGE_MAX_PX', 2048, 64, 16_384, {
      meaning: "An uploaded image's longest side after re-encoding; larger images are scaled down. 64 to 16384.",
    }),
    thumbnailPx: integer('FILES_THUMBNAIL_PX', 300, 16, 2048, { meaning: "A thumbnail's longest side. 16 to 2048." }),
    imageMaxPixels: integer('FILES_IMAGE_MAX_PIXELS', 40_000_000, 1, 1_000_000_000, {
      meaning:
        'Largest image accepted, in pixels (width × height read from the header, before decoding): a larger one, a decompression bomb too, is refused without being decoded.',
    }),
    imageTimeoutS: integer('FILES_IMAGE_TIMEOUT_S', 10, 1, 600, {
      meaning: 'Longest time re-encoding one image may take; longer refuses the message. 1 to 600.',
    }),
    imageConcurrency: integer('FILES_IMAGE_CONCURRENCY', 2, 1, 64, {
      meaning: 'Images re-encoded at once by this process; more wait their turn (memory stays bounded). 1 to 64.',
    }),
    imageQueue: integer('FILES_IMAGE_QUEUE', 16, 0, 10_000, {
      meaning:
        'Images that may wait for their turn to be re-encoded in this process, beyond `FILES_IMAGE_CONCURRENCY`; one more refuses its message with 503 and `Retry-After`, so that a wait stays short. 0 to 10000.',
    }),
    uploadsInFlight: integer('FILES_UPLOADS_IN_FLIGHT', 32, 1, 100_000, {
      meaning:
        'Upload forms (`multipart/form-data`) this process reads at once; one user may have a quarter of them (at least 1) in flight. One more is answered 503 with `Retry-After` before its body is read. 1 to 100000.',
    }),
    uploadTimeoutMs: integer('FILES_UPLOAD_TIMEOUT_MS', 20_000, 1000, 3_600_000, {
      meaning:
        "Time an upload form's body has to arrive whole once its reading starts; slower is answered 408 and its files dropped. Shorter than `REQUEST_TIMEOUT_MS`, which still bounds the whole request. 1000 to 3600000.",
    }),
    sweepGraceS: integer('FILES_SWEEP_GRACE_S', 86_400, 1, 31_536_000, {
      shownDefault: '`86400` (1 day)',
      meaning: 'A stored file no message names is removed by the sweep once it is this old (an upload in progress is younger).',
    }),
    sweepIntervalS: integer('FILES_SWEEP_INTERVAL_S', 3600, 0, 604_800, {
      meaning: 'How often the orphan sweep runs, in seconds; 0: never in this process (another instance sweeps the shared folder).',
    }),
  },
  mail: {
    smtpUrl: url('SMTP_URL', undefined, /^smtps?:\/\/[^\s]+$/i, 'an smtp:// or smtps:// address', {
      shownDefault: '*(unset)*',
      meaning:
        'Where mail leaves (docs/mail.md): `smtp://user:password@host:587` (STARTTLS when the server offers it; add `?requireTLS=true` to insist) or `smtps://user:password@host:465` (TLS). Unset: no mail is sent, and the start-up log says so once. Printed with its password masked.',
    }),
    from: text('MAIL_FROM', '', {
      shownDefault: '*(unset)*',
      meaning:
        "Who the mail is from, `Site name <address@example.com>` or an address; on a WordPress site the site's `blogname` and `admin_email` are used instead. Required with `SMTP_URL` elsewhere.",
      check: (value) => (value === '' || parseMailbox(value) ? undefined : `must be an address or "Name <address>", got "${value}"`),
    }),
    delayS: integer('MAIL_DELAY_S', 120, 0, 86_400, {
      shownDefault: '`120` (2 min)',
      meaning:
        'How long a new message waits before it is mailed to a recipient who is not online; read or online meanwhile, no mail. Messages that come within it go in one mail. 0 to 86400. The default of `mail_delay_s`, which an owner sets from the console or `souk settings set` (docs/console.md) and which then holds instead.',
    }),
    minIntervalS: integer('MAIL_MIN_INTERVAL_S', 900, 0, 604_800, {
      shownDefault: '`900` (15 min)',
      meaning:
        'The least time between two mails to one user about one conversation; messages meanwhile wait for the next. 0 to 604800. The default of `mail_min_interval_s`, which an owner sets from the console or `souk settings set` (docs/console.md) and which then holds instead.',
    }),
    onlineWindowS: integer('ONLINE_WINDOW_S', 300, 1, 86_400, {
      shownDefault: '`300` (5 min)',
      meaning:
        "A user counts as online for this long after an authenticated request (and while they hold an event stream): no mail then. The plugin's `online_status` window. 1 to 86400.",
    }),
    conversationUrl: text('MAIL_CONVERSATION_URL', '{site_url}/my-account/chat/?con_id={con_id}', {
      meaning: "The mail's link to the conversation; `{site_url}`, `{con_id}` and `{listing_id}` are replaced.",
      check: (value) =>
        isHttpUrl(value.replaceAll('{site_url}', 'http://x').replaceAll(/\{(con_id|listing_id)\}/g, '1'))
          ? undefined
          : `must be an http(s) address template, got "${value}"`,
    }),
    retryForS: integer('MAIL_RETRY_FOR_S', 86_400, 1, 7 * 86_400, {
      shownDefault: '`86400` (24 h)',
      meaning:
        'How long a mail the SMTP server did not take is retried, with exponential backoff, before it is kept as failed (`souk mail retry` sends it again).',
    }),
    retryBaseMs: integer('MAIL_RETRY_BASE_MS', 30_000, 10, 3_600_000, {
      meaning: 'The first retry of a mail waits this long; each next one twice as long, at most an hour.',
    }),
    timeoutMs: integer('MAIL_TIMEOUT_MS', 30_000, 100, 600_000, {
      meaning: 'How long the SMTP server has to connect, greet and answer each command; no answer in time is a failed attempt.',
    }),
  },
};

type Declarations = { readonly [key: string]: Setting<unknown> | Declarations };
type ConfigOf<D> = { -readonly [K in keyof D]: D[K] extends Setting<infer T> ? T : ConfigOf<D[K]> };

/** What the rest of Souk reads: one field per declared setting, grouped as declared. */
export type Config = ConfigOf<typeof SETTINGS> & {
  /** Files per message (D6): part of the contract, not a setting. */
  maxFiles: number;
};
export type HttpLimits = Config['http'];
export type RateLimitConfig = Config['rateLimit'];

const isSetting = (node: Setting<unknown> | Declarations): node is Setting<unknown> => typeof node.parse === 'function';

function parseAll(declarations: Declarations, env: Env): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, node] of Object.entries(declarations)) out[key] = isSetting(node) ? node.parse(env) : parseAll(node, env);
  return out;
}

/** Rules that tie two settings together. */
function checkTogether(config: Config): void {
  const { headersTimeoutMs, requestTimeoutMs } = config.http;
  if (headersTimeoutMs > requestTimeoutMs) {
    throw new ConfigError(`HEADERS_TIMEOUT_MS (${headersTimeoutMs}) must not exceed REQUEST_TIMEOUT_MS (${requestTimeoutMs})`);
  }
  if (config.files.s3 && config.databaseUrl.startsWith('mysql:')) {
    throw new ConfigError(
      "FILES_S3_URL is set but DATABASE_URL is a WordPress site's: its chat files go in the site's uploads folder (FILES_DIR)",
    );
  }
  if (config.files.access === 'participants' && config.files.s3PublicUrl !== undefined) {
    throw new ConfigError(
      'FILES_ACCESS=participants but FILES_S3_PUBLIC_URL is set: the bucket would serve the files to anyone; unset it so that Souk serves them',
    );
  }
  if (config.webhooks.urls.length > 0 && config.webhooks.secret === undefined) {
    throw new ConfigError('WEBHOOK_URLS is set but WEBHOOK_SECRET is not: deliveries must be signed');
  }
}

export function loadConfig(env: Env = process.env): Config {
  const config = { ...(parseAll(SETTINGS, env) as ConfigOf<typeof SETTINGS>), maxFiles: 10 };
  checkTogether(config);
  return config;
}

/** The path of the interface's routes: `{api_base}` less the site address. */
export function apiBase(config: Pick<Config, 'apiPrefix'>): string {
  return `${config.apiPrefix}/v1`;
}

/** Every declaration with the value it has in `config`, in declaration order. */
function* declared(declarations: Declarations, values: Record<string, unknown>): Generator<[Setting<unknown>, unknown]> {
  for (const [key, node] of Object.entries(declarations)) {
    if (isSetting(node)) yield [node, values[key]];
    else yield* declared(node, values[key] as Record<string, unknown>);
  }
}

/**
 * The effective value of every setting, by its environment name, secrets masked.
 * An empty API_KEY or JWT_SECRET means the value stored in the database is used (D9).
 */
export function effectiveSettings(config: Config): Array<[name: string, value: string]> {
  return [...declared(SETTINGS, config)].map(([s, value]) => [s.name, s.print(value)]);
}

/** Every declared setting, in declaration order. */
export function declaredSettings(): Array<Setting<unknown>> {
  return [...declared(SETTINGS, loadConfig({}))].map(([s]) => s);
}

/** The settings table of docs/configuration.md, as Markdown. */
export function settingsTable(): string {
  const rows = declaredSettings().map((s) => `| \`${s.name}\` | ${s.shownDefault} | ${s.meaning} |`);
  return ['| Name | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}
