/**
 * The docs page at /docs: Swagger UI, its assets served from the installed @fastify/swagger-ui package
 * (no CDN; the page works on a machine without internet). A strict Content-Security-Policy keeps it
 * that way: the page may load and call only its own origin.
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import swaggerUi from '@fastify/swagger-ui';

const CSP = [
  "default-src 'self'",
  "base-uri 'self'",
  "connect-src 'self'",
  "font-src 'self' data:",
  "form-action 'self'",
  "frame-ancestors 'self'",
  "img-src 'self' data:",
  "object-src 'none'",
  "script-src 'self'",
  "script-src-attr 'none'",
  // Swagger UI sets a few inline styles; scripts stay restricted to the page's own files.
  "style-src 'self' 'unsafe-inline'",
].join('; ');

export const docs = fp(
  async (app: FastifyInstance) => {
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: CSP,
      uiConfig: { docExpansion: 'list', deepLinking: true, displayRequestDuration: true, defaultModelsExpandDepth: 0 },
    });
  },
  { name: 'souk-docs', dependencies: ['souk-openapi'] },
);
