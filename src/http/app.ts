/**
 * Assembles the Fastify application: logging, metrics, CORS, the OpenAPI document and docs page,
 * health probes, parsers, error shapes, auth and the two routes under {api_base}.
 */
import { fileRoutes } from './routes/files.js';
import Fastify, { type FastifyInstance } from 'fastify';
import formbody from '@fastify/formbody';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { apiBase, type Config } from '../config.js';
import { frameworkErrors, installErrorHandling } from './error-handler.js';
import { parseJsonBody } from './json-body.js';
import type { RouteDeps } from './deps.js';
import { appConfigRoutes } from './routes/config.js';
import { loginRoutes } from './routes/login.js';
import { logoutRoutes } from './routes/logout.js';
import { myRoutes } from './routes/my.js';
import { favouriteRoutes } from './routes/my/favourites.js';
import { chatRoutes } from './routes/my/chat.js';
import { chatCheckRoutes } from './routes/my/chat/check.js';
import { conversationRoutes } from './routes/my/chat/conversation.js';
import { messageRoutes } from './routes/my/chat/message.js';
import { chatReportRoutes } from './routes/my/chat/report.js';
import { chatTypingRoutes } from './routes/my/chat/typing.js';
import { chatPresenceRoutes } from './routes/my/chat/presence.js';
import { offerRoutes } from './routes/my/chat/offer.js';
import { offerRespondRoutes } from './routes/my/chat/offer/respond.js';
import { listingReportRoutes } from './routes/listing/report.js';
import { eventRoutes } from './routes/my/events.js';
import { pushNotificationRoutes } from './routes/push-notification.js';
import { notificationRoutes } from './routes/my/notifications.js';
import { unsubscribeRoutes } from './routes/mail/unsubscribe.js';
import { userBlockRoutes } from './routes/privacy/user/block.js';
import { listingBlockRoutes } from './routes/privacy/listing/block.js';
import { pusherAuthRoutes } from './routes/pusher/auth.js';
import { ERROR_SHAPES } from './routes/errors.schema.js';
import { sharedSchemaCompilers } from './schema-compilers.js';
import { cors } from './plugins/cors.js';
import { docs } from './plugins/docs.js';
import { health } from './plugins/health.js';
import { loggerOptions, OneLinePerRequest, requestId, requestIdHeader, type LogDestination } from './plugins/logging.js';
import { openapi } from './plugins/openapi.js';
import { hardening, serverOptions } from './plugins/hardening.js';
import { abuseLimits } from './plugins/abuse-limits.js';
import { serverKeyAuth } from './plugins/server-keys.js';
import { serverUserRoutes } from './routes/server/users.js';
import { serverDisableRoutes } from './routes/server/users/disable.js';
import { serverEnableRoutes } from './routes/server/users/enable.js';
import { serverExportRoutes } from './routes/server/users/export.js';
import { serverTokenRoutes } from './routes/server/users/tokens.js';
import { serverListingRoutes } from './routes/server/listings.js';
import { serverImportRoutes } from './routes/server/import.js';
import { serverReportRoutes } from './routes/server/reports.js';
import { serverCloseReportRoutes } from './routes/server/reports/close.js';
import { serverMessageRoutes } from './routes/server/messages.js';
import { serverDeliveryRoutes } from './routes/server/deliveries.js';
import { serverRetryDeliveryRoutes } from './routes/server/deliveries/retry.js';
import { consoleScope } from './plugins/console.js';
import { consoleSignInRoutes, consoleSignOutRoutes } from './routes/console/sign-in.js';
import { consoleSetupRoutes } from './routes/console/setup.js';
import { consoleOverviewRoutes } from './routes/console/overview.js';
import { consoleReportRoutes } from './routes/console/reports.js';
import { consoleUserRoutes } from './routes/console/users.js';
import { consoleAuditRoutes } from './routes/console/audit.js';
import { consoleDeliveryRoutes } from './routes/console/deliveries.js';
import { consoleConversationRoutes } from './routes/console/conversations.js';
import { consoleSettingsRoutes } from './routes/console/settings.js';
import { consoleStaffRoutes } from './routes/console/staff.js';

export interface AppOptions {
  config: Config;
  deps: RouteDeps;
  /** Log lines go here instead of stdout (tests read them). */
  logDestination?: LogDestination;
}

export async function buildApp({ config, deps, logDestination }: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: await loggerOptions(config, logDestination),
    logController: new OneLinePerRequest(),
    requestIdHeader: false,
    genReqId: requestId,
    bodyLimit: config.bodyLimit,
    routerOptions: { ignoreTrailingSlash: true },
    // request.ip: the connecting address, or X-Forwarded-For's when sent by a trusted proxy.
    trustProxy: config.trustProxy,
    frameworkErrors,
    // Types are not coerced: "12" is accepted for listing_id by the schema itself, true is not.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, allErrors: false } },
    schemaController: sharedSchemaCompilers,
    ...serverOptions(config.http),
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.decorateRequest('caller', null);
  app.decorateRequest('callerToken', null);
  app.decorateRequest('serverKey', null);
  // JSON and form bodies only (D2); every other type is refused with 400.
  app.removeContentTypeParser('text/plain');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    try {
      done(null, parseJsonBody(body as string));
    } catch (err) {
      done(err as Error, undefined);
    }
  });
  await app.register(formbody, { bodyLimit: config.bodyLimit });
  installErrorHandling(app, { bodyLimit: config.bodyLimit, textMaxLength: config.textMaxLength }, deps.health.isUnavailable);
  // The error responses of the route schemas refer to these by $id.
  for (const shape of ERROR_SHAPES) app.addSchema(shape);

  await app.register(requestIdHeader);
  // Counted only where a scrape can read them; prom-client is loaded only then.
  if (config.metricsToken !== undefined || config.metricsPort > 0) {
    const { metrics } = await import('./plugins/metrics.js');
    await app.register(metrics, {
      token: config.metricsToken,
      port: config.metricsPort,
      host: config.metricsHost,
      poolStats: () => deps.health.poolStats(),
      rateLimitStoreUp: config.rateLimit.redisUrl ? () => app.rateLimits.storeUp() : undefined,
      passwordStats: deps.passwordStats,
      mailStats: deps.mailStats,
      pusherStats: deps.pusherStats,
    });
  }
  if (config.corsOrigins.length > 0) await app.register(cors, { origins: config.corsOrigins });
  // Before the routes: @fastify/swagger collects the routes as they are added.
  await app.register(openapi, { apiBase: apiBase(config) });
  await app.register(docs);
  await app.register(health, { readiness: () => deps.health.readiness() });

  await app.register(hardening, { config });
  await app.register(abuseLimits, { config, ...(deps.tunables && { limits: deps.tunables }) });
  if (deps.files) await app.register(fileRoutes(deps.files.storage, deps.files.addresses));

  await app.register(
    async (api) => {
      // One plugin per route file (the folder is the URL); this order is the OpenAPI document's.
      await api.register(loginRoutes, deps);
      await api.register(logoutRoutes, deps);
      await api.register(myRoutes, deps);
      await api.register(favouriteRoutes, deps);
      await api.register(conversationRoutes, deps);
      await api.register(chatRoutes, deps);
      await api.register(chatCheckRoutes, deps);
      await api.register(messageRoutes, deps);
      await api.register(chatReportRoutes, deps);
      await api.register(chatTypingRoutes, deps);
      await api.register(chatPresenceRoutes, deps);
      await api.register(offerRoutes, deps);
      await api.register(offerRespondRoutes, deps);
      await api.register(listingReportRoutes, deps);
      await api.register(eventRoutes, deps);
      await api.register(pusherAuthRoutes, deps);
      await api.register(pushNotificationRoutes, deps);
      await api.register(notificationRoutes, deps);
      await api.register(unsubscribeRoutes, deps);
      await api.register(userBlockRoutes, deps);
      await api.register(listingBlockRoutes, deps);
      await api.register(appConfigRoutes, deps);
    },
    { prefix: apiBase(config) },
  );
  const server = deps.server;
  if (server) {
    // The server API (docs/server-api.md): routes/server/ is SERVER_API_PREFIX, every route behind a server key.
    await app.register(
      async (api) => {
        await api.register(serverKeyAuth, { keys: server.keys });
        await api.register(serverUserRoutes, deps);
        await api.register(serverDisableRoutes, deps);
        await api.register(serverEnableRoutes, deps);
        await api.register(serverExportRoutes, deps);
        await api.register(serverTokenRoutes, deps);
        await api.register(serverListingRoutes, deps);
        await api.register(serverImportRoutes, deps);
        await api.register(serverReportRoutes, deps);
        await api.register(serverCloseReportRoutes, deps);
        await api.register(serverMessageRoutes, deps);
        await api.register(serverDeliveryRoutes, deps);
        await api.register(serverRetryDeliveryRoutes, deps);
      },
      { prefix: config.serverApiPrefix },
    );
  }
  const staffConsole = deps.console;
  if (staffConsole) {
    // The staff console (docs/console.md): pages under /console, in a scope of their own (headers, session, CSRF).
    await app.register(
      (scope) =>
        consoleScope(scope, {
          deps: staffConsole,
          open: [consoleSignInRoutes, consoleSetupRoutes],
          signedIn: [
            consoleOverviewRoutes,
            consoleReportRoutes,
            consoleUserRoutes,
            consoleConversationRoutes,
            consoleDeliveryRoutes,
            consoleSettingsRoutes,
            consoleStaffRoutes,
            consoleAuditRoutes,
            consoleSignOutRoutes,
          ],
        }),
      { prefix: '/console' },
    );
  }
  return app;
}
