/**
 * Conversations: GET /console/conversations?user= (a user's, latest first) or ?listing= (a
 * listing's, newest first, those left too), GET
 * /console/conversations/{id} (who and about what, without the messages) and POST
 * /console/conversations/{id}/read: the messages, shown in the answer to a form that asks a reason,
 * written to the audit log (staff reading private messages is itself recorded). A viewer may list
 * them; reading is refused (403, audited).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { checkedReason, conversationPage, conversationsOf, CONVERSATIONS_PAGE, readConversation } from '../../../domain/staff/console.js';
import type { Conversation, Listing } from '../../../domain/model.js';
import { conversationsAbout } from '../../../domain/staff/reads.js';
import { field, pathId, permitted, signedIn, staffActor, type ConsoleDeps } from './common.js';

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

export async function consoleConversationRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  app.get('/conversations', async (request, reply) => {
    const query = request.query as Record<string, string | undefined>;
    const by = conversationFilter(query);
    const offset = query.offset === undefined ? 0 : Math.min(pathId(query.offset) ?? 0, 1_000_000);
    const rows = 'problem' in by ? [] : await listed(by, offset);
    const next = rows.length === CONVERSATIONS_PAGE ? offset + CONVERSATIONS_PAGE : undefined;
    const error = 'problem' in by ? by.problem : undefined;
    const shownBy = 'problem' in by ? by.shown : by;
    return reply.page('conversations', { title: 'Conversations', ...shownBy, rows, next, error }, error ? 400 : 200);
  });

  /** A user's conversations as the chat lists them, or a listing's (left ones too) with their listing. */
  async function listed(
    by: ConversationFilter,
    offset: number,
  ): Promise<Array<{ conversation: Conversation; listing: Listing | undefined }>> {
    if (by.userId !== undefined) return conversationsOf(deps.operator, by.userId, offset);
    if (by.listingId === undefined) return [];
    const [conversations, listing] = await Promise.all([
      conversationsAbout(deps.reads, deps.operator.repos, by.listingId, offset, CONVERSATIONS_PAGE),
      deps.operator.repos.listings.findById(by.listingId),
    ]);
    return conversations.map((conversation) => ({ conversation, listing }));
  }

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

interface ConversationFilter {
  user: string;
  listing: string;
  userId?: number | undefined;
  listingId?: number | undefined;
}

/** The query's user or listing id, each a positive integer when given, the bad one named. */
function conversationFilter(
  query: Record<string, string | undefined>,
): ConversationFilter | { problem: string; shown: ConversationFilter } {
  const user = (query.user ?? '').trim().slice(0, 40);
  const listing = (query.listing ?? '').trim().slice(0, 40);
  const userId = user === '' ? undefined : pathId(user);
  const listingId = listing === '' ? undefined : pathId(listing);
  const shown = { user, listing };
  if (user !== '' && userId === undefined) return { problem: 'user must be a user id', shown };
  if (listing !== '' && listingId === undefined) return { problem: 'listing must be a listing id', shown };
  if (userId !== undefined && listingId !== undefined) return { problem: 'user and listing: give one of them', shown };
  return { ...shown, userId, listingId };
}
