/**
 * The interface's three error shapes and the mapping of every failure to one of them.
 * This is the only place that decides what an error looks like on the wire.
 */
import type { AuthFailure } from '../auth/failures.js';
import type { StartConversationError } from '../domain/chat/common.js';
import type { OfferError } from '../domain/chat/offer.js';
import type { OwnMessageError } from '../domain/chat/message.js';

export interface ShapeA {
  code: string;
  message: string;
}
export interface ShapeB {
  status: 'error';
  error: string;
  code: string;
  error_message: string;
}
/** Shape B with `message` in place of `error_message`: sign-in's refusal, as the original's login errors. */
export interface ShapeBMessage {
  status: 'error';
  error: string;
  code: string;
  message: string;
}
export interface ShapeC {
  code: string;
  message: string;
  data: { status: number };
}

/** An answer that is not a success: its HTTP status and the body to send. */
export class ApiError extends Error {
  constructor(
    readonly statusCode: number,
    readonly body: ShapeA | ShapeB | ShapeBMessage | ShapeC,
    readonly headers: Record<string, string> = {},
  ) {
    super(`${statusCode} ${'error' in body ? body.error : body.code}`);
  }
}

export const shapeA = (status: number, code: string, message: string) => new ApiError(status, { code, message });

export const shapeB = (status: number, error: string, message: string, headers?: Record<string, string>) =>
  new ApiError(status, { status: 'error', error, code: String(status), error_message: message }, headers);

export const shapeC = (status: number, code: string, message: string) => new ApiError(status, { code, message, data: { status } });

export const forbiddenKeyMessage = (key: string) => `The request body contains a forbidden property name (${key}).`;

export const MESSAGES = {
  pusherSocketId: 'socket_id is required and must be a Pusher socket id (two numbers joined by a dot).',
  pusherChannelName: 'channel_name is required.',
  pusherNotYours: 'You are not permitted to subscribe to this channel.',
  notLoggedIn: 'You are not logged in.',
  noPermission: 'You are not permitted to access this conversation.',
  otherLeft: 'The other participant has left this conversation.',
  limit: 'limit must be between 1 and 500.',
  afterId: 'after_id must be a non-negative integer.',
  listingNotFound: 'Listing not found.',
  listingId: 'listing_id is required and must be a positive integer.',
  noRoute: 'No route was found matching the URL and request method.',
  badUrl: 'The request address holds a malformed percent-encoding (% must be followed by two hexadecimal digits).',
  unreadableUrl: 'The request address could not be read.',
  contentType: 'Content-Type must be application/json or application/x-www-form-urlencoded.',
  emptyBody: 'The request body is empty; a JSON object is expected.',
  invalidJson: 'The request body is not valid JSON.',
  notAnObject: 'The request body must be a JSON object.',
  nestedTooDeeply: 'The request body is nested too deeply.',
  textRequired: 'text is required: send a non-empty message or attach at least one file.',
  textNotString: 'text is required and must be a string.',
  files: 'files must be an array of at most 10 objects {url, name?, mime_type?, size?} with an http(s) url.',
  fileUrlNotPublic:
    'files[].url must not name a loopback, private, link-local, unspecified, multicast or other non-public address, nor localhost.',
  fileUrlStoredHere: 'files[].url must not name a file uploaded to the chat: send the file itself in files[] of a multipart form.',
  fileTextNotPlain:
    'files[].url, name and mime_type must be plain text: no NUL character (U+0000) and no half of a surrogate pair (U+D800-U+DFFF) without the other half.',
  tempId: 'temp_id must be an integer or a string of digits.',
  textHasNul: 'text must not contain the NUL character (U+0000).',
  credentialsRequired: 'username and password are required.',
  page: 'page must be a positive integer.',
  perPage: 'per_page must be a positive integer.',
  perPageRange: 'per_page must be between 1 and 100.',
  textHasLoneSurrogate: 'text must be valid Unicode: it holds half of a surrogate pair (U+D800-U+DFFF) without the other half.',
  pushToken: 'push_token is required and must be an Expo push token: ExponentPushToken[...] or ExpoPushToken[...].',
  pushTokenOrFcm:
    'push_token is required and must be an Expo push token (ExponentPushToken[...] or ExpoPushToken[...]) or an FCM registration token.',
  pushEvents: 'events must be a list of at most 20 strings of at most 64 characters.',
  reportMessage: 'message must be a string.',
  reportReason: 'reason is required: say why the conversation or message is reported.',
  messageNotInConversation: 'message_id is not a message of this conversation.',
  blocked: 'You cannot send messages to this user.',
  cannotBlockSelf: 'You cannot block yourself.',
  cannotBlockOwnListing: 'You cannot block your own listing.',
  pushTokenTaken:
    'This push token is registered to another account, whose session on the device has not ended; it can be registered once that account signs out there.',
} as const;

// Texts of the deployed PHP service where the interface gives only their meaning.
const AUTH_ERRORS: Record<AuthFailure, () => ApiError> = {
  rest_api_disabled: () => shapeC(403, 'DENIED_REST_API', 'Denied api call'),
  api_key_missing: () =>
    shapeB(
      401,
      'MISSING_X_API_KEY_HEADER',
      'X_API_KEY header not received. Either authorization header was not sent or it was removed by your server due to security reasons.',
    ),
  api_key_invalid: () => shapeB(401, 'INVALID_API_KEY', 'Sorry, you are using invalid API Key.'),
  authorization_missing: () =>
    shapeB(
      401,
      'MISSING_AUTHORIZATION_HEADER',
      'Authorization header not received. Either authorization header was not sent or it was removed by your server due to security reasons.',
    ),
  authorization_not_bearer: () =>
    shapeB(401, 'INVALID_AUTHORIZATION_HEADER_TOKEN_TYPE', 'Authorization header must be type of Bearer Token.'),
  token_malformed: () => shapeB(401, 'SEGMENT_FAULT', 'Incorrect JWT Format.'),
  token_bad_signature: () => shapeB(401, 'INVALID_TOKEN', 'JWT signature verification failed.'),
  token_expired: () => shapeB(401, 'INVALID_TOKEN', 'JWT has expired.'),
  token_not_yet_valid: () => shapeB(401, 'INVALID_TOKEN', 'JWT is not valid yet.'),
  token_without_expiry: () => shapeB(401, 'INVALID_TOKEN', 'JWT has no expiry (exp claim missing).'),
  token_without_issue_time: () => shapeB(401, 'INVALID_TOKEN', 'JWT has no issue time (iat claim missing).'),
  token_time_not_numeric: () => shapeB(401, 'INVALID_TOKEN', 'JWT exp, iat and nbf must be numbers (seconds since 1970-01-01).'),
  token_lifetime_too_long: () =>
    shapeB(401, 'INVALID_TOKEN', 'JWT lifetime is longer than this server allows (exp too far after iat or from now).'),
  token_revoked: () => shapeB(401, 'INVALID_TOKEN', 'JWT has been revoked.'),
  not_logged_in: () => shapeA(403, 'FORBIDDEN', MESSAGES.notLoggedIn),
};

export const authError = (failure: AuthFailure): ApiError => AUTH_ERRORS[failure]();

export const badRequest = (message: string) => shapeB(400, 'BADREQUEST', message);

/** GET my/events with a ticket that is unknown, spent or expired. */
export const invalidTicket = () => shapeB(401, 'INVALID_TICKET', 'The event stream ticket is unknown, used or expired.');

export const requiredIdMessage = (name: string) => `${name} is required and must be a positive integer.`;

/** N3: not a participant, left the conversation, or no such conversation: one answer for all. */
export const conversationForbidden = () => shapeA(403, 'FORBIDDEN', MESSAGES.noPermission);

/**
 * A block stands between the two users, or one of them is disabled or erased: one answer whichever
 * side it is, so the other learns only that the chat is closed (docs/safety.md).
 */
export const cannotMessageUser = () => shapeA(403, 'FORBIDDEN', MESSAGES.blocked);

/** privacy/user/block and privacy/listing/block: the plugin's WP_Error replies (WordPress's REST error shape C), and Souk's own refusals. */
export const BLOCK_ERRORS = {
  userNotFound: () => shapeC(404, 'rtcl_rest_validation_error', 'User not found.'),
  userNotBlocked: () => shapeC(404, 'rtcl_rest_validation_error', 'User not exist at blocked list.'),
  listingNotFound: () => shapeC(404, 'rtcl_rest_validation_error', 'Listing not found.'),
  listingNotBlocked: () => shapeC(404, 'rtcl_rest_validation_error', 'Listing not exist at blocked list.'),
  self: () => badRequest(MESSAGES.cannotBlockSelf),
  ownListing: () => badRequest(MESSAGES.cannotBlockOwnListing),
} as const;

export const otherParticipantLeft = () => shapeA(403, 'FORBIDDEN', MESSAGES.otherLeft);

export function chatError(error: StartConversationError, limits: { textMaxLength: number; maxFiles: number }): ApiError {
  switch (error) {
    case 'listing_not_found':
      return badRequest(MESSAGES.listingNotFound);
    case 'own_listing':
      return shapeA(403, 'FORBIDDEN', MESSAGES.noPermission);
    case 'blocked':
    case 'user_closed':
      return cannotMessageUser();
    case 'text_required':
      return badRequest(MESSAGES.textRequired);
    case 'text_too_long':
      return badRequest(textTooLongMessage(limits.textMaxLength));
    case 'text_has_nul':
      return badRequest(MESSAGES.textHasNul);
    case 'text_has_lone_surrogate':
      return badRequest(MESSAGES.textHasLoneSurrogate);
    case 'too_many_files':
      return badRequest(`files may hold at most ${limits.maxFiles} files.`);
    case 'file_url_not_public':
      return badRequest(MESSAGES.fileUrlNotPublic);
    case 'file_url_stored_here':
      return badRequest(MESSAGES.fileUrlStoredHere);
    case 'file_text_not_plain':
      return badRequest(MESSAGES.fileTextNotPlain);
  }
}

export const textTooLongMessage = (textMaxLength: number, field = 'text') => `${field} must be at most ${textMaxLength} characters.`;

/** A report's words that no database stores verbatim: refused in the words chat text is refused in, naming the field. */
export function notPlainTextMessage(field: string, problem: 'text_has_nul' | 'text_has_lone_surrogate'): string {
  const message = problem === 'text_has_nul' ? MESSAGES.textHasNul : MESSAGES.textHasLoneSurrogate;
  return `${field}${message.slice('text'.length)}`;
}

/** listing/report by the listing's owner: the plugin's answer. */
export const notPermittedToReport = () => badRequest('You are not permitted to report.');

/** A message with words of the `bad_words` setting, refused as the plugin refuses it. */
export const inappropriateWords = (words: readonly string[]) =>
  badRequest(`Your message contains inappropriate words (${words.join(', ')}).`);

export const payloadTooLarge = (bodyLimit: number) =>
  shapeB(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${bodyLimit} bytes.`);

/** push-notification/register: the token is another user's, registered by a session still live. */
export const pushTokenTaken = () => shapeB(409, 'PUSH_TOKEN_TAKEN', MESSAGES.pushTokenTaken);

/** PUT my/notifications (docs/mail.md). */
export const notificationsEmailMessage = 'email is required and must be true or false.';
export const notificationsShowPresenceMessage = 'show_presence must be true or false.';
export const presenceUserIdsMessage = 'user_ids is required: a comma-separated list of at most 100 positive integers.';
/** The unsubscribe link of a mail whose user or signature does not hold (docs/mail.md). */
export const invalidUnsubscribeLink = () => shapeB(403, 'INVALID_UNSUBSCRIBE_LINK', 'The unsubscribe link is not valid.');

/** POST pusher/auth: a channel other than the caller's own private one. */
export const pusherChannelForbidden = () => shapeA(403, 'FORBIDDEN', MESSAGES.pusherNotYours);

export const noRoute = () => shapeA(404, 'rest_no_route', MESSAGES.noRoute);

export const serviceUnavailable = () =>
  shapeB(503, 'SERVICE_UNAVAILABLE', 'The service is temporarily unavailable. Please try again shortly.', { 'retry-after': '1' });

/** Too many sign-ins wait for a password verification already (SIGN_IN_QUEUE). */
export const signInsBusy = () =>
  shapeB(503, 'SERVICE_UNAVAILABLE', 'Too many sign-ins at once. Please try again shortly.', { 'retry-after': '1' });

export const internalError = () => shapeB(500, 'INTERNAL_SERVER_ERROR', 'The server could not complete the request.');

export const RATE_LIMIT_MESSAGES = {
  key: 'Too many requests with this API key. Retry after the number of seconds in the Retry-After header.',
  user: 'Too many requests for this user. Retry after the number of seconds in the Retry-After header.',
  serverKey: 'Too many requests with this server key. Retry after the number of seconds in the Retry-After header.',
  address: 'Too many failed authentication attempts from this address. Retry after the number of seconds in the Retry-After header.',
  signIn: 'Too many failed sign-ins. Retry after the number of seconds in the Retry-After header.',
  conversations: 'Too many new conversations in the last hour. Retry after the number of seconds in the Retry-After header.',
  messages: 'Too many messages in the last minute. Retry after the number of seconds in the Retry-After header.',
  reports: 'Too many reports in the last hour. Retry after the number of seconds in the Retry-After header.',
  blocks: 'Too many changes to your block lists in the last hour. Retry after the number of seconds in the Retry-After header.',
} as const;

export const tooManyRequests = (scope: keyof typeof RATE_LIMIT_MESSAGES, retryAfterSeconds: number) =>
  shapeB(429, 'TOO_MANY_REQUESTS', RATE_LIMIT_MESSAGES[scope], { 'retry-after': String(retryAfterSeconds) });

/** Every refused sign-in alike: an unknown user cannot be told from a wrong password (docs/routes.md). */
export const invalidCredentials = () =>
  new ApiError(400, {
    status: 'error',
    error: 'invalid_credentials',
    code: '400',
    message: 'The username or password you entered is incorrect.',
  });

/** The server API (docs/server-api.md): a request without a server key that is one of the keys in force. */
export const invalidServerKey = () =>
  shapeB(
    401,
    'INVALID_SERVER_KEY',
    'The server API needs Authorization: Bearer sk_... with a server key in force (souk server-keys create).',
  );

/** The server API's refusals of a thing it does not find, or of a change the state forbids. */
export const notFound = (what: string, id: number | string) => shapeB(404, 'NOT_FOUND', `No ${what} with id ${id}.`);
export const conflict = (message: string) => shapeB(409, 'CONFLICT', message);
export const SITE_CATALOG_MESSAGE =
  "On a WordPress site the users and listings are the site's own: create and change them in WordPress, which Souk reads at once. The other server API routes work.";
/** my/chat/message DELETE and PATCH: a sender takes back or corrects their message (docs/chat-plus.md). */
export const OWN_MESSAGE_MESSAGES = {
  notYours: 'You are not permitted to change this message: only its sender may.',
  otherConversation: 'You are not permitted to change this message: it is not a message of this conversation.',
  notEditable: 'You are not permitted to edit this message.',
  alreadyRead: 'You are not permitted to edit a message the other participant has read.',
  editWindow: (windowMs: number) =>
    windowMs === 0
      ? 'You are not permitted to edit messages.'
      : `You are not permitted to edit a message more than ${Math.round(windowMs / 60_000)} minutes after sending it.`,
} as const;

export function ownMessageError(
  error: OwnMessageError | StartConversationError,
  c: { limits: { textMaxLength: number; maxFiles: number }; windowMs: number },
): ApiError {
  switch (error) {
    case 'forbidden':
      return conversationForbidden();
    case 'message_not_found':
      return badRequest(MESSAGES.messageNotInConversation);
    case 'other_conversation':
      return shapeA(403, 'FORBIDDEN', OWN_MESSAGE_MESSAGES.otherConversation);
    case 'not_yours':
      return shapeA(403, 'FORBIDDEN', OWN_MESSAGE_MESSAGES.notYours);
    case 'not_editable':
      return shapeA(403, 'FORBIDDEN', OWN_MESSAGE_MESSAGES.notEditable);
    case 'edit_window':
      return shapeA(403, 'FORBIDDEN', OWN_MESSAGE_MESSAGES.editWindow(c.windowMs));
    case 'already_read':
      return shapeA(403, 'FORBIDDEN', OWN_MESSAGE_MESSAGES.alreadyRead);
    default:
      return chatError(error, c.limits);
  }
}

/** my/chat/offer and my/chat/offer/respond (docs/offers.md). */
export const OFFER_MESSAGES = {
  target: 'con_id or listing_id is required and must be a positive integer.',
  action: 'action is required and must be accept, decline or counter.',
  amountRequired: 'amount is required to counter an offer.',
  note: 'text must be a string.',
  currency: 'currency must be a string: an ISO 4217 code such as USD.',
  notAnOffer: 'message_id is not an offer.',
  ownOffer: 'You cannot answer your own offer.',
  answered: 'This offer has already been answered.',
  expired: 'This offer has expired.',
  tooMany: 'Too many offers in this conversation in the last 24 hours.',
  unsupported: "Offers need the chat tables of Classified Listing 4.x or newer: this site's have no meta column.",
} as const;

export const amountMessage = (decimals: number) =>
  decimals === 0
    ? 'amount is required and must be a positive whole number.'
    : `amount is required and must be a positive number with at most ${decimals} decimals.`;
export const amountTooHighMessage = (maxRatio: number) => `amount must be at most ${maxRatio} times the listing's price.`;
export const currencyMessage = (currency: string) => `currency must be the listing's currency, ${currency}.`;

export interface OfferErrorContext {
  limits: { textMaxLength: number; maxFiles: number };
  decimals: number;
  maxRatio: number;
  currency: string;
}

export function offerError(error: OfferError, c: OfferErrorContext): ApiError {
  switch (error) {
    case 'forbidden':
      return conversationForbidden();
    case 'other_left':
      return otherParticipantLeft();
    case 'amount_invalid':
      return badRequest(amountMessage(c.decimals));
    case 'amount_too_high':
      return badRequest(amountTooHighMessage(c.maxRatio));
    case 'currency_mismatch':
      return badRequest(currencyMessage(c.currency));
    case 'amount_required':
      return badRequest(OFFER_MESSAGES.amountRequired);
    case 'not_an_offer':
      return badRequest(OFFER_MESSAGES.notAnOffer);
    case 'own_offer':
      return shapeA(403, 'FORBIDDEN', OFFER_MESSAGES.ownOffer);
    case 'already_answered':
      return shapeB(409, 'OFFER_ANSWERED', OFFER_MESSAGES.answered);
    case 'expired':
      return shapeB(409, 'OFFER_EXPIRED', OFFER_MESSAGES.expired);
    case 'too_many_offers':
      return shapeB(429, 'TOO_MANY_REQUESTS', OFFER_MESSAGES.tooMany);
    case 'unsupported':
      return shapeB(501, 'NOT_IMPLEMENTED', OFFER_MESSAGES.unsupported);
    default:
      return chatError(error, c.limits);
  }
}
