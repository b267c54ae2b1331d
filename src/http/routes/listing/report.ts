/** POST listing/report: a member reports a listing, as the plugin does (docs/safety.md). */
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { reportListing } from '../../../domain/listing/report.js';
import { requestParameters, requiredId, checkWords } from '../../body.js';
import { badRequest, MESSAGES, notPermittedToReport } from '../../errors.js';
import { requireCaller } from '../../auth-hook.js';
import type { RouteDeps } from '../../deps.js';
import { reportListingSchema } from './report.schema.js';

export const listingReportRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  app.post(
    '/listing/report',
    { schema: reportListingSchema({ ...deps.limits, bodyLimit: deps.bodyLimit }), onRequest: requireCaller('memberRoute', deps.auth) },
    async (request) => {
      const params = requestParameters(request.query, request.body);
      const listingId = requiredId(params, 'listing_id');
      const message = params.message ?? '';
      if (typeof message !== 'string') throw badRequest(MESSAGES.reportMessage);
      checkWords(message, 'message', deps.limits.textMaxLength);
      const report = () => reportListing(deps.uow, request.caller!.id, { listingId, message });
      // A repeat of the caller's open report stores nothing: it does not count (abuse-limits.ts).
      const result = await app.abuseLimits.report(request.caller!, report, (r) => r.ok && r.stored);
      if (!result.ok) throw result.error === 'own_listing' ? notPermittedToReport() : badRequest(MESSAGES.listingNotFound);
      return result.count;
    },
  );
};
