/**
 * The docs page at /docs: Swagger UI, its assets served from the installed @fastify/swagger-ui package
 * (no CDN; the page works on a machine without internet). A strict Content-Security-Policy keeps it
 * that way: the page may load and call only its own origin. The page is Souk's own: its title and icon, and
 * Swagger UI's base layout, without the framework's top bar (its logo and its "Explore" address field).
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

/** A plain "S" on a dark square: the page's icon, in place of the framework's. */
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="6" fill="#1f2937"/><text x="16" y="23" font-family="sans-serif" font-size="20" font-weight="bold" fill="#fff" text-anchor="middle">S</text></svg>`;

export const docs = fp(
  async (app: FastifyInstance) => {
    await app.register(swaggerUi, {
      routePrefix: '/docs',
      staticCSP: CSP,
      theme: {
        title: 'Souk: listing marketplace REST interface',
        favicon: [{ filename: 'souk.svg', rel: 'icon', type: 'image/svg+xml', sizes: 'any', content: ICON }],
      },
      uiConfig: {
        // BaseLayout: no top bar, so neither the framework's logo nor the "Explore" field that loads another document.
        layout: 'BaseLayout',
        docExpansion: 'list',
        deepLinking: true,
        displayRequestDuration: true,
        defaultModelsExpandDepth: 0,
      },
    });
  },
  { name: 'souk-docs', dependencies: ['souk-openapi'] },
);
