/** GET /healthz (the process answers) and GET /readyz (the database answers and is migrated), without credentials. */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';

export interface HealthOptions {
  readiness: () => Promise<{ database: boolean; migrations: boolean }>;
}

export const health = fp(
  async (app: FastifyInstance, opts: HealthOptions) => {
    app.get('/healthz', { schema: { hide: true } }, async (_request, reply) => {
      return reply.header('cache-control', 'no-store').send({ status: 'ok' });
    });

    app.get('/readyz', { schema: { hide: true } }, async (_request, reply) => {
      const { database, migrations } = await opts.readiness();
      const ready = database && migrations;
      return reply
        .code(ready ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({
          status: ready ? 'ready' : 'not_ready',
          database: database ? 'ok' : 'unreachable',
          migrations: !database ? 'unknown' : migrations ? 'applied' : 'pending',
        });
    });
  },
  { name: 'souk-health' },
);
