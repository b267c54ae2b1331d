/**
 * The servers under test, each a separate process (so the load generator never shares their
 * event loop): Souk as `node bin/souk serve`, the bare node:http server, the floor
 * (bench/floor-toggle.mjs and bench/floor-reads.mjs, started by bench/floor.ts) and the floors on the
 * bench's own database (bench/floor-mysql.mjs, bench/floor-postgres.mjs).
 */
import { npmStartFlags } from '../scripts/npm-start-flags.js';
import { ROOT, SOUK_BIN, SOUK_READY, startProcess, type ServerProcess } from '../tools/processes.js';

export { cpuSeconds, machineBusySeconds, peakRss, SERVER_HOST, type ServerProcess } from '../tools/processes.js';

export const BARE_SERVER = `${ROOT}bench/bare-server.mjs`;
export const PROFILE_DIR = `${ROOT}bench/profiles`;

export interface SoukProcessOptions {
  databaseUrl: string;
  /** Write a V8 CPU profile named NAME.cpuprofile into bench/profiles when the process exits. */
  profileName?: string;
  /** A command to run the server under, and Node.js flags for it (callgrind.ts). */
  prefix?: string[];
  nodeFlags?: string[];
  /** More environment (MAX_CONNECTIONS for the stream rows). */
  env?: Record<string, string>;
  /** Production settings (PRODUCTION_SETTINGS) instead of the limits off (LIMITS_OFF, the default). */
  production?: boolean;
}

/**
 * Souk's settings as a marketplace runs it: every abuse and rate limit on and counting, as high as
 * the bench needs never to be answered 429 (a few users send thousands of requests a second; one
 * API key and one server key send them all), and logging at its default level (info: a line per request).
 */
export const PRODUCTION_SETTINGS: Record<string, string> = {
  LOG_LEVEL: 'info',
  MESSAGES_PER_MINUTE: '1000000',
  NEW_CONVERSATIONS_PER_HOUR: '1000000',
  OFFERS_PER_CONVERSATION_PER_DAY: '1000000',
  RATE_LIMIT_PER_USER: '1000000000',
  // Off by default; on here, so that it counts as an operator who sets it would have it count.
  RATE_LIMIT_PER_KEY: '1000000000',
  SERVER_API_RATE_LIMIT: '1000000000',
};

/** The settings of the tables before 2026-12-02 (--limits-off): the abuse limits off, warnings only. */
export const LIMITS_OFF: Record<string, string> = {
  LOG_LEVEL: 'warn',
  // The bench's users send far more than a person would: the abuse limits would measure themselves.
  MESSAGES_PER_MINUTE: '0',
  NEW_CONVERSATIONS_PER_HOUR: '0',
  // The offer row sends many offers in each conversation: it measures the offer, not its refusal.
  OFFERS_PER_CONVERSATION_PER_DAY: '1000000',
};

/**
 * The environment of a floor that does Souk's duties too (bench/floor-common.mjs DUTIES): Souk's own
 * settings in this run, so that it counts the same limits and logs at the same level.
 */
export const dutyFloorEnv = (production: boolean): Record<string, string> => ({
  FLOOR_DUTIES: '1',
  ...(production ? PRODUCTION_SETTINGS : LIMITS_OFF),
});

// Under valgrind, loading the modules alone takes a minute or more; on a machine others load, 30 s was seen.
const startupMs = (prefix: string[] | undefined) => (prefix?.length ? 600_000 : 120_000);

export function startSouk(name: string, opts: SoukProcessOptions): Promise<ServerProcess> {
  const profile = opts.profileName ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`, `--cpu-prof-name=${opts.profileName}.cpuprofile`] : [];
  return startProcess(name, {
    args: [...npmStartFlags(), ...(opts.nodeFlags ?? []), ...profile, SOUK_BIN, 'serve'],
    env: {
      DATABASE_URL: opts.databaseUrl,
      SITE_URL: 'https://souk.example',
      ...(opts.production ? PRODUCTION_SETTINGS : LIMITS_OFF),
      ...opts.env,
    },
    ready: SOUK_READY,
    ...(opts.prefix ? { prefix: opts.prefix } : {}),
    startupMs: startupMs(opts.prefix),
  });
}

export function startBare(name: string, prefix?: string[], nodeFlags: string[] = []): Promise<ServerProcess> {
  return startProcess(name, {
    args: [...nodeFlags, BARE_SERVER],
    ready: /bare server listening/,
    ...(prefix ? { prefix } : {}),
    startupMs: startupMs(prefix),
  });
}

export const MYSQL_FLOOR = `${ROOT}bench/floor-mysql.mjs`;
export const POSTGRES_FLOOR = `${ROOT}bench/floor-postgres.mjs`;

type Secrets = { apiKey: string; jwtSecret: string };

/** A floor that works on the bench's own database (its script prints `NAME listening`), with Souk's pool size. */
function startDatabaseFloor(
  name: string,
  script: string,
  databaseUrl: string,
  secrets: Secrets,
  env: Record<string, string> = {},
): Promise<ServerProcess> {
  return startProcess(name, {
    args: [script],
    env: { DATABASE_URL: databaseUrl, API_KEY: secrets.apiKey, JWT_SECRET: secrets.jwtSecret, SITE_URL: 'https://souk.example', ...env },
    ready: new RegExp(`${name} listening`),
  });
}

/** The MySQL floor (bench/floor-mysql.mjs) on the bench's WordPress database. */
export const startMysqlFloor = (databaseUrl: string, secrets: Secrets) =>
  startDatabaseFloor('floor-mysql', MYSQL_FLOOR, databaseUrl, secrets);

/** The PostgreSQL floor (bench/floor-postgres.mjs) on the bench's schema (DATABASE_URL names it in search_path); `env`: dutyFloorEnv for its duty rows. */
export const startPostgresFloor = (databaseUrl: string, secrets: Secrets, env?: Record<string, string>) =>
  startDatabaseFloor('floor-postgres', POSTGRES_FLOOR, databaseUrl, secrets, env);
