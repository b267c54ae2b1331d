/**
 * Users: GET /console/users?q= (by id, login, e-mail or display name), GET /console/users/{id}
 * (status, joined, reports made and against them, blocks) and the actions, each with a reason: POST .../disable, .../enable,
 * .../export (a download) and .../erase (typing the user's login to confirm). Moderators and
 * owners; a viewer's is refused 403 and audited.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { eraseUser, exportUser, setDisabled } from '../../../domain/operator/users.js';
import { checkedReason, REPORTS_AGAINST, userPage } from '../../../domain/staff/console.js';
import { usersNamed } from '../../../domain/staff/reads.js';
import type { User } from '../../../domain/model.js';
import { plainTextProblem } from '../../../domain/chat/common.js';
import { field, pathId, permitted, signedIn, staffActor, type ConsoleDeps } from './common.js';

type IdRequest = FastifyRequest<{ Params: { id: string } }>;

export async function consoleUserRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  app.get('/users', async (request, reply) => {
    const q = ((request.query as Record<string, string | undefined>).q ?? '').trim().slice(0, 254);
    let found: User[] = [];
    // A NUL or half a surrogate pair is no one's name (and PostgreSQL refuses to compare with one).
    if (q !== '' && plainTextProblem(q) === null) {
      const id = pathId(q);
      const byId = id === undefined ? undefined : await deps.operator.repos.users.findById(id);
      const [byName, named] = await Promise.all([deps.findUserByName(q), usersNamed(deps.reads, deps.operator.repos, q)]);
      found = [byId, byName, ...named].filter((u, i, all): u is User => u !== undefined && all.findIndex((o) => o?.id === u.id) === i);
    }
    return reply.page('users', { title: 'Users', q, found });
  });

  async function shown(request: IdRequest, reply: FastifyReply, status = 200, error?: string) {
    const id = pathId(request.params.id);
    const page = id === undefined ? undefined : await userPage(deps.operator, id);
    if (!page) return reply.page('error', { title: 'Not found', message: 'There is no such user.' }, 404);
    const query = request.query as Record<string, string | undefined>;
    return reply.page(
      'user',
      { title: `User ${page.user.id}`, ...page, reportsAgainstShown: REPORTS_AGAINST, done: query.done, error },
      status,
    );
  }

  app.get('/users/:id', (request: IdRequest, reply) => shown(request, reply));

  function action(
    name: string,
    act: (request: IdRequest, reply: FastifyReply, id: number, reason: string) => Promise<FastifyReply | string | undefined>,
  ) {
    return async (request: IdRequest, reply: FastifyReply) => {
      const id = pathId(request.params.id);
      if (id === undefined) return reply.page('error', { title: 'Not found', message: 'There is no such user.' }, 404);
      if (!(await permitted(deps, request, reply, 'moderate', { action: name, targetKind: 'user', targetId: id }))) return reply;
      const reason = checkedReason(field(request.body, 'reason'));
      if (!reason.ok) return shown(request, reply, 400, reason.problem);
      const outcome = await act(request, reply, id, reason.reason);
      if (typeof outcome === 'string') return shown(request, reply, outcome === 'no such user' ? 404 : 400, outcome);
      if (outcome) return outcome;
      return reply.redirect(`/console/users/${id}?done=${name}`, 303);
    };
  }
  const change = (request: FastifyRequest, reason: string) => ({ actor: staffActor(signedIn(request)), reason });

  const settingDisabled = (disabled: boolean) => async (request: IdRequest, _reply: FastifyReply, id: number, reason: string) => {
    const result = await setDisabled(deps.operator, change(request, reason), id, disabled);
    return result.ok ? undefined : result.error === 'erased' ? 'the user was erased' : 'no such user';
  };
  app.post('/users/:id/disable', action('user.disable', settingDisabled(true)));
  app.post('/users/:id/enable', action('user.enable', settingDisabled(false)));

  app.post(
    '/users/:id/export',
    action('user.export', async (request, reply, id, reason) => {
      const result = await exportUser(deps.operator, change(request, reason), id);
      if (!result.ok) return 'no such user';
      return reply
        .header('content-disposition', `attachment; filename="souk-user-${id}.json"`)
        .header('cache-control', 'no-store')
        .type('application/json; charset=utf-8')
        .send(JSON.stringify(result.document, null, 2));
    }),
  );

  app.post(
    '/users/:id/erase',
    action('user.erase', async (request, _reply, id, reason) => {
      const user = await deps.operator.repos.users.findById(id);
      if (!user) return 'no such user';
      if (field(request.body, 'login') !== user.login) return "login must be the user's login, typed to confirm the erasure";
      const result = await eraseUser(deps.operator, change(request, reason), id);
      return result.ok ? undefined : 'no such user';
    }),
  );
}
