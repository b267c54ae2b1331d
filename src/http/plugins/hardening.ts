/** The hardening plugins, registered by one line in app.ts (docs/hardening.md). */
import fp from 'fastify-plugin';
import type { Config } from '../../config.js';
import { connectionLimits } from './connection-limits.js';
import { draining } from './draining.js';
import { framing } from './framing.js';
import { rateLimits } from './rate-limit.js';

export { serverOptions } from './server-options.js';

export const hardening = fp<{ config: Config }>(
  async (app, { config }) => {
    // Each connection holds a socket and buffers: beyond the cap Node closes new ones at once,
    // unanswered, and the connections already open are served as before.
    app.server.maxConnections = config.http.maxConnections;
    await app.register(connectionLimits, {
      perAddress: config.http.maxConnectionsPerAddress,
      idleUnauthenticatedMs: config.http.idleUnauthenticatedMs,
      trustProxy: config.trustProxy,
    });
    await app.register(framing);
    await app.register(draining);
    await app.register(rateLimits, { config: config.rateLimit });
  },
  { name: 'souk-hardening', fastify: '5.x' },
);
