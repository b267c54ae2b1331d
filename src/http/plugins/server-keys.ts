/**
 * The server API's authentication (docs/server-api.md): every request of its scope presents a
 * server key, `Authorization: Bearer sk_...`, before its body is read. Anything else (none, the
 * app's API key, a user's JWT, a revoked or unknown key) is 401 shape B and counted as a failed
 * authentication of the client address, as the app's routes count theirs (plugins/rate-limit.ts);
 * an address over that budget is refused before any key is read. A key passed is counted against
 * SERVER_API_RATE_LIMIT (a key may be used from many addresses: it is the key that is limited).
 */
import fp from 'fastify-plugin';
import type { ServerKeys } from '../../auth/server-keys.js';
import { invalidServerKey } from '../errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The name of the server key the request presented (the server API's scope), else null. */
    serverKey: string | null;
  }
}

const header = (value: string | string[] | undefined) => (Array.isArray(value) ? value.join(', ') : value);

export const serverKeyAuth = fp<{ keys: ServerKeys }>(
  async (app, { keys }) => {
    app.addHook('onRequest', async (request) => {
      const limits = request.server.rateLimits;
      await limits.checkAddress(request.ip);
      const name = keys.nameOf(header(request.headers.authorization));
      if (name === undefined) {
        await limits.authFailed(request.ip);
        throw invalidServerKey();
      }
      await limits.checkServerKey(name);
      request.serverKey = name;
    });
  },
  { name: 'souk-server-key-auth', fastify: '5.x' },
);
