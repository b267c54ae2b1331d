/**
 * GET /console/settings: the bad words and their action (an owner changes them, POST
 * /console/settings/bad-words, with a reason, audited), and the settings of the environment that
 * bear on moderation (abuse limits, retention, mail), shown as they are: they change with a restart.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkedReason } from '../../../domain/staff/console.js';
import { badWordsOf, changeBadWords } from '../../../domain/staff/settings.js';
import { field, permitted, signedIn, staffActor, type ConsoleDeps } from './common.js';

export async function consoleSettingsRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  async function shown(reply: FastifyReply, extra: Record<string, unknown> = {}, status = 200) {
    const badWords = badWordsOf(await deps.settings.all());
    return reply.page('settings', { title: 'Settings', badWords, environment: deps.environment, ...extra }, status);
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
}
