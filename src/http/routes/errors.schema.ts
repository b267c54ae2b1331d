/**
 * The error responses of the two operations, as route response schemas and so in the OpenAPI document.
 * Every reply a status can carry is listed as a named example built by errors.ts itself, so the
 * document cannot drift from what is sent. (Error bodies are sent by error-handler.ts with
 * JSON.stringify; these schemas describe them and the contract test checks real replies against them.)
 */
import { Type, type Static } from '@sinclair/typebox';
import type { AuthFailure } from '../../auth/failures.js';
import {
  authError,
  badRequest,
  BLOCK_ERRORS,
  chatError,
  conversationForbidden,
  forbiddenKeyMessage,
  internalError,
  invalidCredentials,
  invalidTicket,
  inappropriateWords,
  MESSAGES,
  noRoute,
  notPermittedToReport,
  otherParticipantLeft,
  cannotMessageUser,
  ownMessageError,
  shapeB,
  payloadTooLarge,
  pushTokenTaken,
  pusherChannelForbidden,
  requiredIdMessage,
  serviceUnavailable,
  signInsBusy,
  textTooLongMessage,
  notPlainTextMessage,
  tooManyRequests,
  type ApiError,
  invalidUnsubscribeLink,
  notificationsEmailMessage,
  invalidServerKey,
  notificationsShowPresenceMessage,
  presenceUserIdsMessage,
  amountMessage,
  amountTooHighMessage,
  currencyMessage,
  OFFER_MESSAGES,
  offerError,
} from '../errors.js';

export const ErrorShapeA = Type.Object(
  { code: Type.String(), message: Type.String() },
  { $id: 'ErrorShapeA', additionalProperties: false, title: 'Error shape A', description: '`{code, message}`' },
);

export const ErrorShapeB = Type.Object(
  {
    status: Type.Literal('error'),
    error: Type.String(),
    code: Type.String({ pattern: '^[1-5][0-9]{2}$', description: 'The HTTP status as a string.' }),
    error_message: Type.String(),
  },
  {
    $id: 'ErrorShapeB',
    additionalProperties: false,
    title: 'Error shape B',
    description: '`{status: "error", error, code, error_message}`',
  },
);

export const ErrorShapeBMessage = Type.Object(
  { status: Type.Literal('error'), error: Type.String(), code: Type.String({ pattern: '^[1-5][0-9]{2}$' }), message: Type.String() },
  {
    $id: 'ErrorShapeBMessage',
    additionalProperties: false,
    title: 'Error shape B (sign-in)',
    description: '`{status: "error", error, code, message}`: shape B with `message`, as the original sign-in answers',
  },
);

export const ErrorShapeC = Type.Object(
  { code: Type.String(), message: Type.String(), data: Type.Object({ status: Type.Integer() }, { additionalProperties: false }) },
  { $id: 'ErrorShapeC', additionalProperties: false, title: 'Error shape C', description: '`{code, message, data: {status}}`' },
);

/** Shared schemas (app.addSchema): the responses refer to them, and the OpenAPI document lists them once. */
export const ERROR_SHAPES = [ErrorShapeA, ErrorShapeB, ErrorShapeBMessage, ErrorShapeC];

type ErrorBody = Static<typeof ErrorShapeA> | Static<typeof ErrorShapeB> | Static<typeof ErrorShapeBMessage> | Static<typeof ErrorShapeC>;

export const RequestIdReplyHeader = {
  type: 'string',
  description: 'The request id: the incoming X-Request-Id when it was acceptable, else a generated one. It is in the logs too.',
};

function shapeOf(error: ApiError): string {
  if ('data' in error.body) return ErrorShapeC.$id as string;
  if ('status' in error.body) return ('message' in error.body ? ErrorShapeBMessage.$id : ErrorShapeB.$id) as string;
  return ErrorShapeA.$id as string;
}

const codeOf = (error: ApiError) => ('error' in error.body ? error.body.error : error.body.code);
const messageOf = (error: ApiError) => ('error_message' in error.body ? error.body.error_message : error.body.message);

/**
 * One status's response: the shape (or shapes) its body takes, a description listing every
 * code and message, and each possible body as a named example.
 */
function errorResponse(summary: string, errors: ApiError[], headers: Record<string, object> = {}) {
  const shapes = [...new Set(errors.map(shapeOf))].map((id) => ({ $ref: `${id}#` }));
  // allOf of one: @fastify/swagger drops the siblings (examples) of a bare $ref.
  const schema = shapes.length === 1 ? { allOf: shapes } : { anyOf: shapes };
  const seen = new Map<string, number>();
  const examples = Object.fromEntries(
    errors.map((error) => {
      const code = codeOf(error);
      const n = (seen.get(code) ?? 0) + 1;
      seen.set(code, n);
      return [n === 1 ? code : `${code} (${n})`, { summary: messageOf(error), value: error.body }];
    }),
  );
  const list = errors.map((e) => `- \`${codeOf(e)}\`: ${messageOf(e)}`).join('\n');
  return Type.Unsafe<ErrorBody>({
    ...schema,
    // The response's description (x-response-description keeps it out of the body schema).
    'x-response-description': `${summary}\n\n${list}`,
    headers: { 'x-request-id': RequestIdReplyHeader, ...headers },
    'x-examples': examples,
  });
}

const auth = (failures: AuthFailure[]) => failures.map(authError);

/** Token failures after the API key was accepted (D4 step 3). */
const TOKEN_FAILURES: AuthFailure[] = [
  'authorization_not_bearer',
  'token_malformed',
  'token_bad_signature',
  'token_expired',
  'token_not_yet_valid',
  'token_without_expiry',
  'token_without_issue_time',
  'token_time_not_numeric',
  'token_lifetime_too_long',
];

const BODY_ERRORS = [MESSAGES.contentType, MESSAGES.invalidJson, forbiddenKeyMessage('__proto__'), MESSAGES.notAnObject].map(badRequest);

/** Replies every operation can give whatever its rules: no route, body too large, server trouble. */
function commonErrors(bodyLimit: number) {
  return {
    404: errorResponse('No route matches the address and method: check `{api_base}` (shape A).', [noRoute()]),
    413: errorResponse(`The request body is larger than the limit (${bodyLimit} bytes here; shape B).`, [payloadTooLarge(bodyLimit)]),
    500: errorResponse('An unexpected error; it is logged with the request id (shape B).', [internalError()]),
    503: errorResponse('The database is unavailable for now; retry after the given seconds (shape B).', [serviceUnavailable()], {
      'retry-after': { type: 'string', description: 'Seconds to wait before retrying.' },
    }),
  };
}

export function toggleFavouriteErrors(limits: { bodyLimit: number }) {
  return {
    400: errorResponse('The body is not valid, or the listing does not exist or is in the trash (shape B, `BADREQUEST`).', [
      badRequest(MESSAGES.listingId),
      badRequest(MESSAGES.listingNotFound),
      ...BODY_ERRORS,
    ]),
    401: errorResponse('The API key or the bearer token was refused (shape B; `code` is "401").', [
      ...auth(['api_key_missing', 'api_key_invalid']),
      ...auth(TOKEN_FAILURES),
    ]),
    403: errorResponse("No Authorization header, or the token's user does not exist or is disabled (shape A).", auth(['not_logged_in'])),
    ...commonErrors(limits.bodyLimit),
  };
}

export function startConversationErrors(limits: { bodyLimit: number; textMaxLength: number; maxFiles: number }) {
  return {
    400: errorResponse('The body is not valid, or the listing does not exist or is in the trash (shape B, `BADREQUEST`).', [
      badRequest(MESSAGES.listingId),
      badRequest(MESSAGES.listingNotFound),
      badRequest(MESSAGES.textNotString),
      badRequest(MESSAGES.textRequired),
      badRequest(textTooLongMessage(limits.textMaxLength)),
      badRequest(MESSAGES.textHasNul),
      badRequest(MESSAGES.files),
      chatError('too_many_files', limits),
      badRequest(MESSAGES.fileUrlNotPublic),
      badRequest(MESSAGES.fileUrlStoredHere),
      badRequest(MESSAGES.fileTextNotPlain),
      badRequest(MESSAGES.tempId),
      badWordsError(),
      ...BODY_ERRORS,
    ]),
    401: errorResponse('The API key, the Authorization header or the bearer token was refused (shape B; `code` is "401").', [
      ...auth(['api_key_missing', 'api_key_invalid', 'authorization_missing']),
      ...auth(TOKEN_FAILURES),
    ]),
    403: errorResponse(
      "The REST interface is disabled (shape C, `data.status` 403), the token's user does not exist or is disabled, " +
        'the caller owns the listing, a block stands between the caller and its owner or the caller blocked it, ' +
        'or the caller was disabled a moment ago (shape A).',
      [authError('rest_api_disabled'), authError('not_logged_in'), chatError('own_listing', limits), cannotMessageUser()],
    ),
    ...abuseLimitErrors(['conversations', 'messages']),
    ...audioRefused(),
    ...commonErrors(limits.bodyLimit),
  };
}

/** An upload form's file sent as audio whose bytes are not audio Souk takes (docs/files.md, "Voice messages and audio"). */
export const audioRefused = () => ({
  415: errorResponse(
    'A file sent as audio (its declared type or name) is not audio Souk accepts (shape B, naming the file and the reason).',
    [shapeB(415, 'UNSUPPORTED_MEDIA_TYPE', 'File "voice.m4a" refused: its content is not audio Souk accepts.')],
  ),
});

const tooManySignIns = () => tooManyRequests('signIn', 60);

/** POST login: the app's checks (REST switch, API key), then its own. */
export function signInErrors(limits: { bodyLimit: number }) {
  return {
    400: errorResponse(
      'A field is missing (shape B, `BADREQUEST`), or the username and password do not match an enabled account ' +
        '(`invalid_credentials`, with `message`: the same for an unknown user, a wrong password, a disabled user).',
      [badRequest(MESSAGES.credentialsRequired), invalidCredentials(), ...BODY_ERRORS],
    ),
    401: errorResponse('The API key was refused (shape B).', auth(['api_key_missing', 'api_key_invalid'])),
    403: errorResponse('The REST interface is disabled (shape C).', [authError('rest_api_disabled')]),
    429: errorResponse(
      'Too many failed sign-ins for this username or from this address, or failed authentications from this address (shape B).',
      [tooManySignIns(), tooManyRequests('address', 60)],
      { 'retry-after': { type: 'string', description: 'Seconds until the window ends.' } },
    ),
    ...commonErrors(limits.bodyLimit),
    503: errorResponse(
      'The database is unavailable for now, or too many sign-ins wait for a password check (`SIGN_IN_QUEUE`); retry after the given seconds (shape B).',
      [serviceUnavailable(), signInsBusy()],
      { 'retry-after': { type: 'string', description: 'Seconds to wait before retrying.' } },
    ),
  };
}

/** Routes for a signed-in member (N1): D4 as the conversation start runs it. */
export function memberRouteErrors(limits: { bodyLimit: number }) {
  return {
    401: errorResponse('The API key, the Authorization header or the bearer token was refused, or the token was signed out (shape B).', [
      ...auth(['api_key_missing', 'api_key_invalid', 'authorization_missing']),
      ...auth(TOKEN_FAILURES),
      authError('token_revoked'),
    ]),
    403: errorResponse("The REST interface is disabled (shape C), or the token's user does not exist or is disabled (shape A).", [
      authError('rest_api_disabled'),
      authError('not_logged_in'),
    ]),
    ...commonErrors(limits.bodyLimit),
  };
}

/** GET my/events: a member route, or a single-use ticket in place of the headers. */
export function eventStreamErrors(limits: { bodyLimit: number }) {
  return {
    ...memberRouteErrors(limits),
    401: errorResponse(
      'The API key, the Authorization header, the bearer token or the ticket was refused, or the token was signed out (shape B).',
      [
        ...auth(['api_key_missing', 'api_key_invalid', 'authorization_missing']),
        ...auth(TOKEN_FAILURES),
        authError('token_revoked'),
        invalidTicket(),
      ],
    ),
  };
}

/** POST pusher/auth: a member route whose socket id and channel may be refused. */
export function pusherAuthErrors(limits: { bodyLimit: number }) {
  const member = memberRouteErrors(limits);
  return {
    ...member,
    400: errorResponse('`socket_id` or `channel_name` is missing or not valid, or the body cannot be read (shape B, `BADREQUEST`).', [
      badRequest(MESSAGES.pusherSocketId),
      badRequest(MESSAGES.pusherChannelName),
      ...BODY_ERRORS,
    ]),
    403: errorResponse(
      "The channel is not the caller's own private channel (shape A), the REST interface is disabled (shape C), or the token's user does not exist or is disabled (shape A).",
      [pusherChannelForbidden(), authError('rest_api_disabled'), authError('not_logged_in')],
    ),
  };
}

/** push-notification/register and add-device: a member route whose token and event list may be refused. */
export function registerDeviceErrors(limits: { bodyLimit: number }) {
  return {
    400: errorResponse('`push_token` or `events` is not valid, or the body cannot be read (shape B, `BADREQUEST`).', [
      badRequest(MESSAGES.pushToken),
      badRequest(MESSAGES.pushEvents),
      ...BODY_ERRORS,
    ]),
    409: errorResponse('The token is held by another user whose session that registered it has not ended (shape B).', [pushTokenTaken()]),
    ...memberRouteErrors(limits),
  };
}

const pageErrors = () => [badRequest(MESSAGES.page), badRequest(MESSAGES.perPage), badRequest(MESSAGES.perPageRange)];

/** A list a page at a time (GET my/favourites, GET my/chat): a member route whose page and per_page may be refused (N2). */
export function pagedListErrors(limits: { bodyLimit: number }) {
  return {
    400: errorResponse('`page` or `per_page` is not valid (shape B, `BADREQUEST`).', pageErrors()),
    ...memberRouteErrors(limits),
  };
}

/** The chat's routes after the start (docs/routes.md): their parameters (N2) and the access rule (N3). */
export function chatRouteErrors(limits: { bodyLimit: number }, ids: string[], extra400: ApiError[] = [], extra403: ApiError[] = []) {
  const member = memberRouteErrors(limits);
  return {
    400: errorResponse('A parameter is missing or not valid (shape B, `BADREQUEST`).', [
      ...ids.map((name) => badRequest(requiredIdMessage(name))),
      ...extra400,
    ]),
    ...member,
    403: errorResponse(
      "The REST interface is disabled (shape C), the token's user does not exist or is disabled, or the caller may not " +
        'access the conversation: not a participant, left it, or no such conversation (shape A).',
      [authError('rest_api_disabled'), authError('not_logged_in'), conversationForbidden(), ...extra403],
    ),
  };
}

export const conversationReadErrors = (limits: { bodyLimit: number }) =>
  chatRouteErrors(limits, ['con_id'], [...pageErrors(), badRequest(MESSAGES.limit), badRequest(MESSAGES.afterId)]);

export const conversationCheckErrors = (limits: { bodyLimit: number }) =>
  chatRouteErrors(limits, ['listing_id'], [...pageErrors(), badRequest(MESSAGES.limit), badRequest(MESSAGES.afterId)]);

export function sendMessageErrors(limits: { bodyLimit: number; textMaxLength: number; maxFiles: number }) {
  const errors = chatRouteErrors(
    limits,
    ['con_id', 'listing_id'],
    [
      badRequest(MESSAGES.textNotString),
      badRequest(MESSAGES.textRequired),
      badRequest(textTooLongMessage(limits.textMaxLength)),
      badRequest(MESSAGES.textHasNul),
      badRequest(MESSAGES.textHasLoneSurrogate),
      badRequest(MESSAGES.files),
      chatError('too_many_files', limits),
      badRequest(MESSAGES.fileUrlNotPublic),
      badRequest(MESSAGES.fileUrlStoredHere),
      badRequest(MESSAGES.fileTextNotPlain),
      badRequest(MESSAGES.tempId),
      badWordsError(),
      ...BODY_ERRORS,
    ],
    // A block between the two, or the other participant (or the caller) disabled or erased (docs/safety.md).
    [otherParticipantLeft(), cannotMessageUser()],
  );
  return { ...errors, ...abuseLimitErrors(['messages']), ...audioRefused() };
}

export const markReadErrors = (limits: { bodyLimit: number }) => chatRouteErrors(limits, ['con_id', 'message_id'], BODY_ERRORS);

/** The refusals a sender's own message may meet (DELETE and PATCH my/chat/message). */
const ownMessageRefusals = (limits: { textMaxLength: number; maxFiles: number }) =>
  (['other_conversation', 'not_yours'] as const).map((e) => ownMessageError(e, { limits, windowMs: 900_000 }));

export const deleteMessageErrors = (limits: { bodyLimit: number; textMaxLength: number; maxFiles: number }) =>
  chatRouteErrors(
    limits,
    ['con_id', 'message_id'],
    [badRequest(MESSAGES.messageNotInConversation), ...BODY_ERRORS],
    ownMessageRefusals(limits),
  );

export function editMessageErrors(limits: { bodyLimit: number; textMaxLength: number; maxFiles: number }) {
  const c = { limits, windowMs: 900_000 };
  return chatRouteErrors(
    limits,
    ['con_id', 'message_id'],
    [
      badRequest(MESSAGES.messageNotInConversation),
      badRequest(MESSAGES.textNotString),
      badRequest(MESSAGES.textRequired),
      badRequest(textTooLongMessage(limits.textMaxLength)),
      badRequest(MESSAGES.textHasNul),
      badRequest(MESSAGES.textHasLoneSurrogate),
      badWordsError(),
      ...BODY_ERRORS,
    ],
    [
      ...ownMessageRefusals(limits),
      ownMessageError('not_editable', c),
      ownMessageError('edit_window', c),
      ownMessageError('already_read', c),
      cannotMessageUser(),
    ],
  );
}

const ABUSE_LIMIT_SETTINGS = {
  conversations: 'NEW_CONVERSATIONS_PER_HOUR',
  messages: 'MESSAGES_PER_MINUTE',
  reports: 'REPORTS_PER_HOUR',
  blocks: 'BLOCK_CHANGES_PER_HOUR',
} as const;

/** The abuse limits of a conversation's start, a message, a report, a change of block lists (http/plugins/abuse-limits.ts). */
export function abuseLimitErrors(kinds: Array<keyof typeof ABUSE_LIMIT_SETTINGS>) {
  return {
    429: errorResponse(
      `Too many requests for this user, or the caller is over ${kinds.map((kind) => ABUSE_LIMIT_SETTINGS[kind]).join(' or ')} (shape B).`,
      [tooManyRequests('user', 60), ...kinds.map((kind) => tooManyRequests(kind, 60))],
      { 'retry-after': { type: 'string', description: 'Seconds until the sender may go on.' } },
    ),
  };
}

/** A message refused for the words of the `bad_words` setting. */
export function badWordsError() {
  return inappropriateWords(['scam']);
}

export function reportListingErrors(limits: { bodyLimit: number; textMaxLength: number }) {
  return {
    400: errorResponse('The body is not valid, the listing does not exist, or the caller owns it (shape B, `BADREQUEST`).', [
      badRequest(MESSAGES.listingId),
      badRequest(MESSAGES.listingNotFound),
      notPermittedToReport(),
      badRequest(MESSAGES.reportMessage),
      badRequest(textTooLongMessage(limits.textMaxLength, 'message')),
      badRequest(notPlainTextMessage('message', 'text_has_nul')),
      badRequest(notPlainTextMessage('message', 'text_has_lone_surrogate')),
      ...BODY_ERRORS,
    ]),
    ...memberRouteErrors(limits),
    ...abuseLimitErrors(['reports']),
  };
}

/** PUT my/notifications: a member route whose `email` may be refused. */
export function notificationsErrors(limits: { bodyLimit: number }) {
  return {
    400: errorResponse('`email` or `show_presence` is not true or false, or the body cannot be read (shape B, `BADREQUEST`).', [
      badRequest(notificationsEmailMessage),
      badRequest(notificationsShowPresenceMessage),
      ...BODY_ERRORS,
    ]),
    ...memberRouteErrors(limits),
  };
}

/** GET my/chat/presence: a member route with a list of ids. */
export function chatPresenceErrors(limits: { bodyLimit: number }) {
  return {
    400: errorResponse('`user_ids` is missing or not a list of at most 100 ids (shape B, `BADREQUEST`).', [
      badRequest(presenceUserIdsMessage),
    ]),
    ...memberRouteErrors(limits),
  };
}

export const reportConversationErrors = (limits: { bodyLimit: number; textMaxLength: number }) => ({
  ...chatRouteErrors(
    limits,
    ['con_id', 'message_id'],
    [
      badRequest(MESSAGES.reportReason),
      badRequest(textTooLongMessage(limits.textMaxLength, 'reason')),
      badRequest(notPlainTextMessage('reason', 'text_has_nul')),
      badRequest(notPlainTextMessage('reason', 'text_has_lone_surrogate')),
      badRequest(MESSAGES.messageNotInConversation),
      ...BODY_ERRORS,
    ],
  ),
  ...abuseLimitErrors(['reports']),
});
/** mail/unsubscribe: no credentials, a signed link. */
export function unsubscribeErrors(limits: { bodyLimit: number }) {
  return {
    403: errorResponse("The link's user and signature do not match (shape B).", [invalidUnsubscribeLink()]),
    ...commonErrors(limits.bodyLimit),
  };
}
/** privacy/user/block and privacy/listing/block: N2's id, the plugin's 404s, Souk's own 400 (docs/safety.md). */
export function blockRouteErrors(limits: { bodyLimit: number }, kind: 'user' | 'listing', method: 'GET' | 'POST' | 'DELETE') {
  const member = memberRouteErrors(limits);
  if (method === 'GET') return member;
  const id = kind === 'user' ? 'user_id' : 'listing_id';
  const refusal = kind === 'user' ? BLOCK_ERRORS.self() : BLOCK_ERRORS.ownListing();
  const notFound = kind === 'user' ? BLOCK_ERRORS.userNotFound() : BLOCK_ERRORS.listingNotFound();
  const notBlocked = kind === 'user' ? BLOCK_ERRORS.userNotBlocked() : BLOCK_ERRORS.listingNotBlocked();
  return {
    400: errorResponse(
      method === 'POST'
        ? `\`${id}\` is missing or not valid, or names the caller${kind === 'user' ? '' : "'s own listing"} (shape B, \`BADREQUEST\`).`
        : `\`${id}\` is missing or not valid (shape B, \`BADREQUEST\`).`,
      [badRequest(requiredIdMessage(id)), ...(method === 'POST' ? [refusal] : []), ...BODY_ERRORS],
    ),
    ...member,
    404: errorResponse(
      method === 'POST'
        ? `No such ${kind} (shape C, as the plugin answers), or no route (shape A).`
        : `No such ${kind}, or it is not in the caller's list (shape C, as the plugin answers), or no route (shape A).`,
      method === 'POST' ? [notFound, noRoute()] : [notFound, notBlocked, noRoute()],
    ),
    ...abuseLimitErrors(['blocks']),
  };
}
/** A route that needs the API key only (GET config): the key's and the REST switch's refusals. */
export function appRouteErrors(limits: { bodyLimit: number }) {
  return {
    401: errorResponse('The API key was refused (shape B).', auth(['api_key_missing', 'api_key_invalid'])),
    403: errorResponse('The REST interface is disabled (shape C).', [authError('rest_api_disabled')]),
    429: errorResponse('Too many failed authentications from this address (shape B).', [tooManyRequests('address', 60)], {
      'retry-after': { type: 'string', description: 'Seconds until the window ends.' },
    }),
    ...commonErrors(limits.bodyLimit),
  };
}

/**
 * A route of the server API (docs/server-api.md): the server key's refusal and its rate limit,
 * the route's own 400s, 404s and 409s, and the replies every operation can give.
 */
export function serverApiErrors(limits: { bodyLimit: number }, own: { 400?: ApiError[]; 404?: ApiError[]; 409?: ApiError[] } = {}) {
  return {
    ...(own[400] ? { 400: errorResponse('The request is not valid; the message names the field (shape B, `BADREQUEST`).', own[400]) } : {}),
    401: errorResponse("No server key, or not one in force: the app's API key and users' tokens are refused here (shape B).", [
      invalidServerKey(),
    ]),
    ...(own[404] ? { 404: errorResponse('No such thing, or no route (shape B; shape A for no route).', [...own[404], noRoute()]) } : {}),
    ...(own[409] ? { 409: errorResponse('The change conflicts with the state (shape B, `CONFLICT`).', own[409]) } : {}),
    429: errorResponse(
      'Too many requests with this server key, or failed authentications from this address (shape B).',
      [tooManyRequests('serverKey', 60), tooManyRequests('address', 60)],
      { 'retry-after': { type: 'string', description: 'Seconds until the window ends.' } },
    ),
    ...(own[404] ? (({ 404: _, ...rest }) => rest)(commonErrors(limits.bodyLimit)) : commonErrors(limits.bodyLimit)),
  };
}
/** POST my/chat/offer (docs/offers.md): a message's refusals, a start's, and the offer's own. */
export function makeOfferErrors(limits: { bodyLimit: number; textMaxLength: number; maxFiles: number }) {
  const errors = chatRouteErrors(
    limits,
    [],
    [
      badRequest(OFFER_MESSAGES.target),
      badRequest(amountMessage(2)),
      badRequest(amountTooHighMessage(10)),
      badRequest(currencyMessage('USD')),
      badRequest(OFFER_MESSAGES.currency),
      badRequest(OFFER_MESSAGES.note),
      badRequest(MESSAGES.listingNotFound),
      badRequest(textTooLongMessage(limits.textMaxLength)),
      badWordsError(),
      ...BODY_ERRORS,
    ],
    [chatError('own_listing', limits), otherParticipantLeft(), cannotMessageUser()],
  );
  return { ...errors, ...offerLimitErrors(['conversations', 'messages']), ...offersUnsupported() };
}

/** POST my/chat/offer/respond: the offer's answer refused, or found already answered or expired. */
export function respondToOfferErrors(limits: { bodyLimit: number }) {
  const errors = chatRouteErrors(
    limits,
    ['message_id'],
    [
      badRequest(OFFER_MESSAGES.action),
      badRequest(OFFER_MESSAGES.amountRequired),
      badRequest(amountMessage(2)),
      badRequest(amountTooHighMessage(10)),
      badRequest(OFFER_MESSAGES.notAnOffer),
      badRequest(MESSAGES.listingNotFound),
      ...BODY_ERRORS,
    ],
    [offerError('own_offer', OFFER_EXAMPLE_CONTEXT), otherParticipantLeft(), cannotMessageUser()],
  );
  return {
    ...errors,
    409: errorResponse('The offer was answered already, or has expired (shape B).', [
      offerError('already_answered', OFFER_EXAMPLE_CONTEXT),
      offerError('expired', OFFER_EXAMPLE_CONTEXT),
    ]),
    ...offerLimitErrors(['messages']),
    ...offersUnsupported(),
  };
}

const OFFER_EXAMPLE_CONTEXT = { limits: { textMaxLength: 5000, maxFiles: 10 }, decimals: 2, maxRatio: 10, currency: 'USD' };

function offerLimitErrors(kinds: Array<'conversations' | 'messages'>) {
  return {
    429: errorResponse(
      'Too many requests for this user, the sender is over NEW_CONVERSATIONS_PER_HOUR or MESSAGES_PER_MINUTE, or over ' +
        'OFFERS_PER_CONVERSATION_PER_DAY in this conversation (shape B).',
      [
        tooManyRequests('user', 60),
        ...kinds.map((kind) => tooManyRequests(kind, 60)),
        offerError('too_many_offers', OFFER_EXAMPLE_CONTEXT),
      ],
      { 'retry-after': { type: 'string', description: 'Seconds until the sender may go on (not sent for the offers of a day).' } },
    ),
  };
}

const offersUnsupported = () => ({
  501: errorResponse("A WordPress site whose chat tables have no `meta` column (the 2.x plugin's) keeps no offers (shape B).", [
    offerError('unsupported', OFFER_EXAMPLE_CONTEXT),
  ]),
});
