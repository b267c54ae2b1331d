/**
 * Conversations: GET /console/conversations?user= (a user's, latest first), GET
 * /console/conversations/{id} (who and about what, without the messages) and POST
 * /console/conversations/{id}/read: the messages, shown in the answer to a form that asks a reason,
 * written to the audit log (staff reading private messages is itself recorded). A viewer may list
 * them; reading is refused (403, audited).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkedReason, conversationPage, conversationsOf, CONVERSATIONS_PAGE, readConversation } from '../../../domain/staff/console.js';
import { field, pathId, permitted, signedIn, staffActor, type ConsoleDeps } from './common.js';

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

export async function consoleConversationRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  app.get('/conversations', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const userText = (query.user ?? '').trim();
    const userId = userText === '' ? undefined : pathId(userText);
    const offset = query.offset === undefined ? 0 : Math.min(pathId(query.offset) ?? 0, 1_000_000);
    const error = userText !== '' && userId === undefined ? 'user must be a user id' : undefined;
    const rows = userId === undefined ? [] : await conversationsOf(deps.operator, userId, offset);
    const next = rows.length === CONVERSATIONS_PAGE ? offset + CONVERSATIONS_PAGE : undefined;
    return reply.page('conversations', { title: 'Conversations', user: userText, userId, rows, next, error }, error ? 400 : 200);
  });

  async function shown(request: IdRequest, reply: FastifyReply, extra: Record<string, unknown> = {}, status = 200) {
    const id = pathId(request.params.id);
    const page = id === undefined ? undefined : await conversationPage(deps.operator, id);
    if (!page) return reply.page('error', { title: 'Not found', message: 'There is no such conversation.' }, 404);
    return reply.page('conversation', { title: `Conversation ${page.conversation.id}`, ...page, ...extra }, status);
  }

  app.get('/conversations/:id', (request: IdRequest, reply) => shown(request, reply));

  app.post('/conversations/:id/read', async (request: IdRequest, reply) => {
    const id = pathId(request.params.id);
    if (id === undefined) return reply.page('error', { title: 'Not found', message: 'There is no such conversation.' }, 404);
    if (!(await permitted(deps, request, reply, 'read_bodies', { action: 'conversation.read', targetKind: 'conversation', targetId: id })))
      return reply;
    const reason = checkedReason(field(request.body, 'reason'));
    if (!reason.ok) return shown(request, reply, { error: reason.problem }, 400);
    const messages = await readConversation(deps.operator, { actor: staffActor(signedIn(request)), reason: reason.reason }, id);
    if (!messages) return reply.page('error', { title: 'Not found', message: 'There is no such conversation.' }, 404);
    return shown(request, reply, { messages, reason: reason.reason });
  });
}
