/** Starts Souk: opens the store, migrates, loads the shared settings and serves the interface. */
import type { FastifyInstance } from 'fastify';
import type { Config } from './config.js';
import { TokenVerifier } from './auth/jwt.js';
import { apiBase, buildApp } from './http/app.js';
import type { RouteDeps } from './http/deps.js';
import type { LogDestination } from './http/plugins/logging.js';
import { timeFormatter } from './present/time.js';
import { LiveSettings } from './settings.js';
import { openStore, type Store } from './store/index.js';
import { cachedUserLookup } from './store/user-cache.js';
import { shutdownOnSignals } from './shutdown.js';

export interface Souk {
  app: FastifyInstance;
  store: Store;
  settings: LiveSettings;
  close(): Promise<void>;
}

export function routeDeps(config: Config, store: Store, settings: LiveSettings): RouteDeps {
  const findUser = cachedUserLookup((id) => store.repos.users.findById(id), settings.catalogVersion);
  return {
    store,
    auth: { settings: settings.current, verifier: new TokenVerifier(), findUser },
    findUser,
    limits: { textMaxLength: config.textMaxLength, maxFiles: config.maxFiles },
    bodyLimit: config.bodyLimit,
    presentation: {
      siteUrl: config.siteUrl,
      listingUrlTemplate: config.listingUrlTemplate,
      price: config.price,
      formatTime: timeFormatter(config.siteTimezone),
    },
  };
}

export interface SoukOptions {
  /** Log lines go here instead of stdout (tests read them). */
  logDestination?: LogDestination;
}

/** Builds a ready-to-listen Souk on the configured database (migrated, settings loaded). */
export async function createSouk(config: Config, options: SoukOptions = {}): Promise<Souk> {
  const store = openStore(config.databaseUrl, config.db);
  try {
    await store.migrate();
    const settings = await LiveSettings.load(store.settings, { apiKey: config.apiKey, jwtSecret: config.jwtSecret });
    settings.watch(config.settingsRefreshMs);
    const app = await buildApp({ config, deps: routeDeps(config, store, settings), logDestination: options.logDestination });
    return {
      app,
      store,
      settings,
      async close() {
        settings.stop();
        await app.close();
        await store.close();
      },
    };
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
}

export async function serve(config: Config): Promise<Souk> {
  const souk = await createSouk(config);
  const address = await souk.app.listen({ port: config.port, host: config.host });
  console.log(`Souk is serving the interface at ${address}${apiBase(config)}`);
  shutdownOnSignals(souk, config.shutdownTimeoutMs);
  return souk;
}
