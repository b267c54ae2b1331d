/**
 * The outboxes' deliveries: GET /console/deliveries (one outbox, by status, newest first, 50 a page)
 * and POST /console/deliveries/{id}/retry: a failed delivery sent again, as `souk deliveries retry`
 * and the server API do it (the use case audits it, with the member as the actor). A viewer's retry
 * is refused 403 and audited. What an outbox keeps is shown, never its payload.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { maskUrlSecrets } from '../../../config.js';
import {
  DELIVERY_KINDS,
  DELIVERY_STATUSES,
  listDeliveries,
  parseDeliveryId,
  retryDelivery,
  type DeliveryKind,
} from '../../../domain/operator/deliveries.js';
import { serverDelivery } from '../../../present/server/deliveries.js';
import { pathId, permitted, signedIn, staffActor, type ConsoleDeps } from './common.js';

const PAGE = 50;

const isKind = (text: string): text is DeliveryKind => (DELIVERY_KINDS as readonly string[]).includes(text);

export async function consoleDeliveryRoutes(app: FastifyInstance, deps: ConsoleDeps): Promise<void> {
  /** The page of `kind` the query asks, with a notice or an error of the action before. */
  async function shown(request: FastifyRequest, reply: FastifyReply, extra: { kind?: DeliveryKind; error?: string } = {}, status = 200) {
    const query = request.query as Record<string, string | undefined>;
    const kindText = extra.kind ?? query.kind ?? 'webhook';
    const kind: DeliveryKind = isKind(kindText) ? kindText : 'webhook';
    const statusText = extra.kind ? '' : (query.status ?? '');
    const statuses = DELIVERY_STATUSES[kind];
    const problem = !isKind(kindText)
      ? 'kind must be webhook, mail, push or pusher'
      : statusText !== '' && !statuses.includes(statusText)
        ? `status must be one of ${statuses.join(', ')} for ${kind} deliveries`
        : undefined;
    const before = extra.kind || query.before === undefined ? undefined : pathId(query.before);
    const deliveries = problem
      ? []
      : await listDeliveries(deps.operator, {
          kind,
          limit: PAGE,
          ...(statusText ? { status: statusText } : {}),
          ...(before === undefined ? {} : { beforeId: before }),
        });
    const next = deliveries.length === PAGE ? deliveries.at(-1)!.delivery.id : undefined;
    const done = query.done !== undefined && parseDeliveryId(query.done) ? query.done : undefined;
    return reply.page(
      'deliveries',
      {
        title: 'Deliveries',
        kinds: DELIVERY_KINDS,
        kind,
        statuses,
        status: statusText,
        rows: deliveries.map((d) => serverDelivery(d, maskUrlSecrets)),
        next,
        done,
        error: extra.error ?? problem,
      },
      problem ? 400 : status,
    );
  }

  app.get('/deliveries', (request, reply) => shown(request, reply));

  app.post('/deliveries/:id/retry', async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
    const id = request.params.id;
    const ref = parseDeliveryId(id);
    if (!ref) return reply.page('error', { title: 'Not found', message: 'There is no such delivery.' }, 404);
    if (!(await permitted(deps, request, reply, 'moderate', { action: 'delivery.retry', targetKind: ref.kind, targetId: ref.id })))
      return reply;
    const result = await retryDelivery(deps.operator, { actor: staffActor(signedIn(request)) }, ref);
    if (result.ok) return reply.redirect(`/console/deliveries?kind=${ref.kind}&done=${id}`, 303);
    switch (result.error) {
      case 'not_failed':
        return shown(
          request,
          reply,
          { kind: ref.kind, error: `${id} is ${result.status}, not failed: only a failed delivery is sent again.` },
          409,
        );
      case 'superseded':
        return shown(
          request,
          reply,
          { kind: ref.kind, error: `${id} is not sent again: a pending mail about the same conversation carries its messages.` },
          409,
        );
      default:
        return reply.page('error', { title: 'Not found', message: 'There is no such delivery.' }, 404);
    }
  });
}
