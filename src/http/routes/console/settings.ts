/**
 * GET /console/settings: the bad words and their action (an owner changes them, POST
 * /console/settings/bad-words), the abuse limits and the retention (POST /console/settings/limits),
 * each with a reason, audited; and the environment's mail and audit retention, shown as they are:
 * they change with a restart.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkedReason } from '../../../domain/staff/console.js';
import { badWordsOf, changeBadWords, changeTunables, tunableRows } from '../../../domain/staff/settings.js';
import { field, permitted, signedIn, staffActor, type ConsoleDeps } from './common.js';

export async function consoleSettingsRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  async function shown(reply: FastifyReply, extra: Record<string, unknown> = {}, status = 200) {
    const all = await deps.settings.all();
    const tunables = tunableRows(all, deps.tunableDefaults);
    return reply.page(
      'settings',
      { title: 'Settings', badWords: badWordsOf(all), tunables, environment: deps.environment, ...extra },
      status,
    );
  }

  app.get('/settings', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    return shown(reply, { done: query.done });
  });

  app.post('/settings/bad-words', async (request: FastifyRequest, reply) => {
    if (!(await permitted(deps, request, reply, 'administer', { action: 'settings.change', targetKind: 'settings', targetId: null })))
      return reply;
    const reason = checkedReason(field(request.body, 'reason'));
    if (!reason.ok) return shown(reply, { error: reason.problem }, 400);
    const result = await changeBadWords(
      { settings: deps.settings, audit: deps.operator.audit, now: deps.now },
      { actor: staffActor(signedIn(request)), reason: reason.reason },
      field(request.body, 'words'),
      field(request.body, 'action'),
    );
    if (!result.ok) return shown(reply, { error: result.problem }, 400);
    return reply.redirect('/console/settings?done=settings.change', 303);
  });

  app.post('/settings/limits', async (request: FastifyRequest, reply) => {
    if (!(await permitted(deps, request, reply, 'administer', { action: 'settings.change', targetKind: 'settings', targetId: null })))
      return reply;
    const reason = checkedReason(field(request.body, 'reason'));
    if (!reason.ok) return shown(reply, { error: reason.problem }, 400);
    const result = await changeTunables(
      { settings: deps.settings, audit: deps.operator.audit, now: deps.now },
      { actor: staffActor(signedIn(request)), reason: reason.reason },
      (key) => field(request.body, key),
    );
    if (!result.ok) return shown(reply, { error: result.problem }, 400);
    return reply.redirect('/console/settings?done=settings.change', 303);
  });
}
