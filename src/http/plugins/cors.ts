/** CORS for browser clients on an explicit allow-list of origins (CORS_ORIGINS); not registered when empty. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import fastifyCors from '@fastify/cors';

export const cors = fp(
  async (app: FastifyInstance, opts: { origins: string[] }) => {
    await app.register(fastifyCors, {
      origin: opts.origins,
      methods: ['GET', 'POST'],
      allowedHeaders: ['Authorization', 'X-API-KEY', 'Content-Type', 'X-Request-Id'],
      // Browsers hide reply headers unless listed: clients need the request id and Retry-After on 503.
      exposedHeaders: ['X-Request-Id', 'Retry-After'],
      maxAge: 600,
    });
  },
  { name: 'souk-cors' },
);
