/** Schema of GET {SERVER_API_PREFIX}/reports (docs/server-api.md). */
import { Type } from '@sinclair/typebox';
import { badRequest } from '../../errors.js';
import { serverApiErrors } from '../errors.schema.js';
import { SERVER_SECURITY, SERVER_TAG, success } from './common.schema.js';

const Id = Type.Integer();
const OrNull = <T extends ReturnType<typeof Type.Integer> | ReturnType<typeof Type.String>>(t: T) => Type.Union([t, Type.Null()]);

export const ServerReport = Type.Object({
  id: Id,
  status: Type.Union([Type.Literal('open'), Type.Literal('closed')]),
  kind: Type.Union([Type.Literal('listing'), Type.Literal('conversation'), Type.Literal('message')]),
  reporter_id: Id,
  reported_user_id: OrNull(Type.Integer()),
  listing_id: OrNull(Type.Integer()),
  con_id: OrNull(Type.Integer()),
  message_id: OrNull(Type.Integer()),
  reason: Type.String(),
  messages: Type.Array(Type.Object({ id: Id, sender_id: Id, text: Type.String(), created_at: OrNull(Type.String()) }), {
    description: 'The reported messages as they were when reported, oldest first; none for a listing.',
  }),
  created_at: Type.String(),
  closed_at: OrNull(Type.String()),
});

export function listReportsSchema(limits: { bodyLimit: number }) {
  return {
    security: SERVER_SECURITY,
    tags: [SERVER_TAG],
    operationId: 'serverListReports',
    summary: 'The reports, newest first',
    description:
      'The reports made with `POST listing/report` and `POST my/chat/report`, newest first, a page at a time: pass `next_cursor` back as `cursor` for the next page (null: no more).',
    querystring: Type.Object({
      status: Type.Optional(
        Type.Union([Type.Literal('open'), Type.Literal('closed')], { description: 'Only open, or only closed, reports.' }),
      ),
      limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,3}$', description: 'At most this many (1 to 100; default 20).' })),
      cursor: Type.Optional(Type.String({ description: 'The `next_cursor` of the page before.' })),
    }),
    response: {
      200: success(
        Type.Object(
          { data: Type.Array(ServerReport), next_cursor: Type.Union([Type.String(), Type.Null()]) },
          {
            examples: [
              {
                data: [
                  {
                    id: 12,
                    status: 'open',
                    kind: 'message',
                    reporter_id: 7,
                    reported_user_id: 8,
                    listing_id: 101,
                    con_id: 3,
                    message_id: 41,
                    reason: 'Insults',
                    messages: [{ id: 41, sender_id: 8, text: '...', created_at: '2026-11-30T18:02:11.000Z' }],
                    created_at: '2026-11-30T18:05:00.000Z',
                    closed_at: null,
                  },
                ],
                next_cursor: 'YmVmb3JlOjEy',
              },
            ],
          },
        ),
        'A page of reports.',
      ),
      ...serverApiErrors(limits, {
        400: [
          badRequest('status must be open or closed.'),
          badRequest('limit must be between 1 and 100.'),
          badRequest('cursor must be the next_cursor of an earlier page.'),
        ],
      }),
    },
  };
}
