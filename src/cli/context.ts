/** What every admin command starts from: the configuration and a migrated store. */
import { databaseTarget, loadConfig, type Config } from '../config.js';
import { ensureSettings, toAuthSettings } from '../auth/settings.js';
import type { Store } from '../store/index.js';
import type { AuthSettings } from '../auth/authenticate.js';
import { cliIo } from './io.js';
import { terminalSafe } from './terminal.js';

/** A failure to report on one line and exit non-zero. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode = 1,
  ) {
    super(message);
  }
}

export interface CliContext {
  config: Config;
  store: Store;
  /** Writes a line; its controls escaped (terminal.ts). */
  out: (line: string) => void;
  err: (line: string) => void;
  /** Settings with the environment's secret overrides applied, as servers see them. */
  authSettings(): Promise<AuthSettings>;
}

export async function withStore<T>(fn: (ctx: CliContext) => Promise<T>): Promise<T> {
  const io = cliIo();
  const config = loadConfig(io.env);
  // Loaded here, not above: help and usage errors answer without loading every database's driver.
  const { openMigratedStore } = await import('../store/index.js');
  const { url, shown, createSqliteFolder } = databaseTarget(config);
  const store = await openMigratedStore(url, { ...config.db, createSqliteFolder }, shown);
  try {
    const ctx: CliContext = {
      config,
      store,
      out: (line) => io.stdout.write(`${terminalSafe(line)}\n`),
      err: (line) => io.stderr.write(`${terminalSafe(line)}\n`),
      authSettings: async () => toAuthSettings(await ensureSettings(store.settings), config),
    };
    return await fn(ctx);
  } finally {
    await store.close();
  }
}
