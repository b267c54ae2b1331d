/** Turns whatever went wrong while serving a request into the interface's error shapes. */
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { InappropriateWords } from '../domain/safety/words.js';
import { logRequest, tagRequest } from './plugins/logging.js';
import {
  ApiError,
  badRequest,
  inappropriateWords,
  internalError,
  MESSAGES,
  noRoute,
  payloadTooLarge,
  requiredIdMessage,
  serviceUnavailable,
  textTooLongMessage,
} from './errors.js';

const FIELD_MESSAGES: Record<string, (keyword: string) => string> = {
  listing_id: () => MESSAGES.listingId,
  con_id: () => requiredIdMessage('con_id'),
  message_id: () => requiredIdMessage('message_id'),
  limit: () => MESSAGES.limit,
  after_id: () => MESSAGES.afterId,
  text: (keyword) => (keyword === 'maxLength' ? 'text is too long.' : MESSAGES.textNotString),
  files: () => MESSAGES.files,
  temp_id: () => MESSAGES.tempId,
  page: () => MESSAGES.page,
  per_page: () => MESSAGES.perPage,
  push_token: () => MESSAGES.pushToken,
  events: () => MESSAGES.pushEvents,
  // listing/report and my/chat/report (their lengths: below).
  message: () => MESSAGES.reportMessage,
  reason: () => MESSAGES.reportReason,
};

interface ValidationIssue {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
}

/** Names the body field a schema failure is about, in words a client developer can act on. */
function validationMessage(issues: ValidationIssue[], maxTextLength: number): string {
  const first = issues[0];
  if (!first) return 'The request body is invalid.';
  const field =
    first.instancePath === '' && first.keyword === 'required' ? String(first.params.missingProperty) : first.instancePath.split('/')[1];
  if (field === undefined || field === '') return MESSAGES.notAnObject;
  if ((field === 'text' || field === 'message' || field === 'reason') && first.keyword === 'maxLength')
    return textTooLongMessage(maxTextLength, field);
  return FIELD_MESSAGES[field]?.(first.keyword) ?? `${field} is invalid.`;
}

function fastifyError(err: FastifyError, bodyLimit: number, maxTextLength: number): ApiError | undefined {
  if (err.validation) return badRequest(validationMessage(err.validation as ValidationIssue[], maxTextLength));
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return payloadTooLarge(bodyLimit);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return badRequest(MESSAGES.contentType);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest(MESSAGES.emptyBody);
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return badRequest(MESSAGES.invalidJson);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest('The Content-Length header does not match the body.');
  }
  if (err instanceof SyntaxError) return badRequest(MESSAGES.invalidJson);
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return err.statusCode === 413 ? payloadTooLarge(bodyLimit) : badRequest('The request could not be read.');
  }
  return undefined;
}

/** `isUnavailable` tells the database's passing failures (answered 503) from bugs (500). */
export function installErrorHandling(
  app: FastifyInstance,
  limits: { bodyLimit: number; textMaxLength: number },
  isUnavailable: (err: unknown) => boolean,
): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    let answer: ApiError | undefined =
      err instanceof ApiError
        ? err
        : err instanceof InappropriateWords
          ? inappropriateWords(err.words)
          : fastifyError(err, request.routeOptions.bodyLimit ?? limits.bodyLimit, limits.textMaxLength);
    if (!answer && isUnavailable(err)) {
      request.log.warn({ err: { message: err.message, code: err.code } }, 'database unavailable');
      answer = serviceUnavailable();
    }
    if (!answer) {
      request.log.error({ err }, 'unexpected error');
      answer = internalError();
    }
    send(reply, answer);
  });

  app.setNotFoundHandler((_request, reply) => send(reply, noRoute()));
}

/**
 * Fastify's frameworkErrors option: a request its router cannot read (a malformed percent-encoding
 * in the path) is answered before any hook runs and Fastify writes no line for it, so it is tagged
 * and logged here, and answered in shape B without echoing the address.
 */
export function frameworkErrors(error: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  tagRequest(request, reply);
  reply.raw.once('close', () => logRequest(null, request, reply));
  send(reply, badRequest(error.code === 'FST_ERR_BAD_URL' ? MESSAGES.badUrl : MESSAGES.unreadableUrl));
}

/**
 * Error bodies are built by errors.ts in their exact wire order and sent with JSON.stringify, not through
 * the routes' response schemas: those document the errors (OpenAPI), but a status such as 403 has two
 * shapes, and a schema-driven serialiser would have to guess between them and could drop keys.
 */
function send(reply: FastifyReply, answer: ApiError): void {
  void reply
    .code(answer.statusCode)
    .headers(answer.headers)
    .type('application/json; charset=utf-8')
    .serializer(JSON.stringify)
    .send(answer.body);
}
