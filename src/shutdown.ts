/**
 * Graceful shutdown on SIGTERM/SIGINT (docs/hardening.md): stop accepting connections, let the
 * requests in flight finish (their connections close after the reply), close the database, exit 0.
 * Requests still running when SHUTDOWN_TIMEOUT_MS has passed have their connections cut, and the
 * process exits 1 so that the cut is visible. A second signal cuts them at once.
 */
import type { FastifyInstance } from 'fastify';

/** What a shutdown stops: the app's connections, then everything behind it. */
export interface Stoppable {
  app: FastifyInstance;
  close(): Promise<void>;
}

export interface ShutdownResult {
  /** True when the deadline (or a second signal) cut requests that were still in flight. */
  forced: boolean;
  ms: number;
}

export interface Shutdown {
  /** Starts the shutdown (once); later calls return the same promise. */
  begin(reason: string): Promise<ShutdownResult>;
  /** Cuts every open connection now. */
  cut(reason: string): void;
}

/** How often idle keep-alive connections are closed while draining. */
const SWEEP_EVERY_MS = 100;

export function gracefulShutdown(souk: Stoppable, timeoutMs: number): Shutdown {
  const { app } = souk;
  let running: Promise<ShutdownResult> | undefined;
  let forced = false;

  const cut = (reason: string) => {
    if (forced) return;
    forced = true;
    app.log.warn({ inFlight: app.inFlightRequests() }, `shutdown: ${reason}; cutting the connections of requests still in flight`);
    app.server.closeAllConnections();
  };

  const begin = (reason: string) => {
    running ??= (async () => {
      const started = performance.now();
      app.log.info(
        { inFlight: app.inFlightRequests(), timeoutMs },
        `shutdown: ${reason}; no new connections, finishing requests in flight`,
      );
      // A connection whose reply was on its way when the shutdown began turns idle afterwards:
      // close those too (Node closes only the ones idle at the moment close() is called).
      const sweeper = setInterval(() => app.server.closeIdleConnections(), SWEEP_EVERY_MS);
      const deadline = setTimeout(() => cut(`deadline of ${timeoutMs} ms passed`), timeoutMs);
      try {
        await souk.close();
      } finally {
        clearInterval(sweeper);
        clearTimeout(deadline);
      }
      const ms = Math.round(performance.now() - started);
      app.log.info({ ms, forced }, 'shutdown: server and database closed');
      return { forced, ms };
    })();
    return running;
  };

  return { begin, cut };
}

/** Installs the SIGTERM/SIGINT handlers of a serving process. */
export function shutdownOnSignals(
  souk: Stoppable,
  timeoutMs: number,
  exit: (code: number) => void = (code) => process.exit(code),
): Shutdown {
  const shutdown = gracefulShutdown(souk, timeoutMs);
  let signals = 0;
  for (const signal of ['SIGTERM', 'SIGINT'] as const) {
    process.on(signal, () => {
      if (++signals > 1) return shutdown.cut(`second signal (${signal})`);
      shutdown.begin(`received ${signal}`).then(
        (result) => exit(result.forced ? 1 : 0),
        (err: unknown) => {
          souk.app.log.error({ err }, 'shutdown failed');
          exit(1);
        },
      );
    });
  }
  return shutdown;
}
