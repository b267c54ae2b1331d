/**
 * A real Souk for a test: a fresh database, the fixture marketplace imported, the real
 * Fastify app (inject, or a listening socket with listen()), and helpers to call it.
 */
import { after } from 'node:test';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { loadConfig, type Config } from '../../src/config.js';
import { signToken } from '../../src/auth/jwt.js';
import type { TokenKeys } from '../../src/auth/token-mac.js';
import { importCatalog } from '../../src/domain/catalog.js';
import { parseImportDocument } from '../../src/cli/import-document.js';
import { createSouk, type Souk, type SoukOptions } from '../../src/server.js';
import { migratedDatabase, type TestDatabase } from './database.js';
import { marketplace, SITE_URL } from './fixtures.js';

export const PATHS = { toggle: '/wp-json/rtcl/v1/my/favourites', start: '/wp-json/rtcl/v1/my/chat/conversation' } as const;

export interface TestSouk {
  souk: Souk;
  app: FastifyInstance;
  config: Config;
  database: TestDatabase;
  apiKey: string;
  jwtSecret: string;
  /** What signs and marks Souk's tokens (the settings in force). */
  tokenKeys: TokenKeys;
  token(userId: number, opts?: { ttl?: number; login?: string }): string;
  /** Headers of a logged-in call for the user. */
  auth(userId: number): Record<string, string>;
  post(path: string, body: unknown, headers?: Record<string, string | undefined>): Promise<LightMyRequestResponse>;
  toggle(userId: number, body: unknown): Promise<LightMyRequestResponse>;
  start(userId: number, body: unknown): Promise<LightMyRequestResponse>;
  /** Starts listening on 127.0.0.1 and returns the base address. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/**
 * `env.DATABASE_URL`, when given, is a database the caller made and drops (a WordPress site's
 * MySQL database: test/helpers/wordpress.ts); else each Souk gets a fresh one. A `document` of
 * null imports nothing (a WordPress site brings its own catalog).
 */
export async function startTestSouk(
  env: Record<string, string> = {},
  document: unknown = marketplace(),
  options: SoukOptions = {},
): Promise<TestSouk> {
  const database: TestDatabase = env.DATABASE_URL
    ? { url: env.DATABASE_URL, dialect: env.DATABASE_URL.startsWith('mysql') ? 'mysql' : 'sqlite', drop: async () => {} }
    : await migratedDatabase();
  // Password threads at the process's priority: at the default nice 19 the sign-ins of one test
  // file wait behind every other process of the run (the default is tested in password-threads).
  const config = loadConfig({
    DATABASE_URL: database.url,
    SITE_URL,
    SETTINGS_REFRESH_MS: '200',
    LOG_LEVEL: 'silent',
    PASSWORD_NICE: '0',
    // Tests send many messages at once; the abuse limits have tests of their own.
    MESSAGES_PER_MINUTE: '0',
    NEW_CONVERSATIONS_PER_HOUR: '0',
    REPORTS_PER_HOUR: '0',
    BLOCK_CHANGES_PER_HOUR: '0',
    ...env,
  });
  const souk = await createSouk(config, options);
  if (document !== null) {
    const parsed = parseImportDocument(document);
    if (!parsed.ok) throw new Error(`fixture: ${parsed.path}: ${parsed.problem}`);
    const imported = await importCatalog(souk.store, parsed.catalog);
    if (!imported.ok) throw new Error(`fixture: ${imported.path}: ${imported.problem}`);
  }
  const { apiKey, jwtSecret, tokenMacKey } = souk.settings.current();
  const tokenKeys = { jwtSecret, tokenMacKey };
  // As POST login issues them: signed, and marked as Souk's.
  const token = (userId: number, opts: { ttl?: number; login?: string } = {}) =>
    signToken(tokenKeys, userId, opts.login ?? `user${userId}`, opts.ttl ?? 3600);
  const auth = (userId: number) => ({ authorization: `Bearer ${token(userId)}`, 'x-api-key': apiKey });
  const post = (url: string, body: unknown, headers: Record<string, string | undefined> = {}) => {
    const payload = typeof body === 'string' ? body : JSON.stringify(body);
    const clean = Object.fromEntries(
      Object.entries({ 'content-type': 'application/json', ...headers }).filter(([, v]) => v !== undefined),
    ) as Record<string, string>;
    return souk.app.inject({ method: 'POST', url, payload, headers: clean });
  };
  let closed = false;
  const t: TestSouk = {
    souk,
    app: souk.app,
    config,
    database,
    apiKey,
    jwtSecret,
    tokenKeys,
    token,
    auth,
    post,
    toggle: (userId, body) => post(PATHS.toggle, body, auth(userId)),
    start: (userId, body) => post(PATHS.start, body, auth(userId)),
    async listen() {
      return souk.app.listen({ port: 0, host: '127.0.0.1' });
    },
    async close() {
      if (closed) return;
      closed = true;
      await souk.close();
      await database.drop();
    },
  };
  after(() => t.close());
  return t;
}
