/** Turns whatever went wrong while serving a request into the interface's error shapes. */
import type { FastifyError, FastifyInstance } from 'fastify';
import { isStoreUnavailable } from '../store/index.js';
import { ApiError, badRequest, internalError, MESSAGES, serviceUnavailable, shapeA, shapeB } from './errors.js';

const FIELD_MESSAGES: Record<string, (keyword: string) => string> = {
  listing_id: () => MESSAGES.listingId,
  text: (keyword) => (keyword === 'maxLength' ? 'text is too long.' : 'text is required and must be a string.'),
  files: () => 'files must be an array of at most 10 objects {url, name?, mime_type?, size?} with an http(s) url.',
  temp_id: () => 'temp_id must be an integer or a string of digits.',
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
    first.instancePath === '' && first.keyword === 'required'
      ? String(first.params.missingProperty)
      : first.instancePath.split('/')[1];
  if (field === undefined || field === '') return 'The request body must be a JSON object.';
  if (field === 'text' && first.keyword === 'maxLength') return `text must be at most ${maxTextLength} characters.`;
  return FIELD_MESSAGES[field]?.(first.keyword) ?? `${field} is invalid.`;
}

function fastifyError(err: FastifyError, bodyLimit: number, maxTextLength: number): ApiError | undefined {
  if (err.validation) return badRequest(validationMessage(err.validation as ValidationIssue[], maxTextLength));
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return shapeB(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${bodyLimit} bytes.`);
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return badRequest('Content-Type must be application/json or application/x-www-form-urlencoded.');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return badRequest('The request body is empty; a JSON object is expected.');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return badRequest('The request body is not valid JSON.');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return badRequest('The Content-Length header does not match the body.');
  }
  if (err instanceof SyntaxError) return badRequest('The request body is not valid JSON.');
  if (typeof err.statusCode === 'number' && err.statusCode >= 400 && err.statusCode < 500) {
    return err.statusCode === 413
      ? shapeB(413, 'PAYLOAD_TOO_LARGE', `The request body is larger than the limit of ${bodyLimit} bytes.`)
      : badRequest('The request could not be read.');
  }
  return undefined;
}

export function installErrorHandling(app: FastifyInstance, limits: { bodyLimit: number; textMaxLength: number }): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    let answer: ApiError | undefined = err instanceof ApiError ? err : fastifyError(err, limits.bodyLimit, limits.textMaxLength);
    if (!answer && isStoreUnavailable(err)) {
      request.log.warn({ err: { message: err.message, code: err.code } }, 'database unavailable');
      answer = serviceUnavailable();
    }
    if (!answer) {
      request.log.error({ err }, 'unexpected error');
      answer = internalError();
    }
    void reply.code(answer.statusCode).headers(answer.headers).send(answer.body);
  });

  app.setNotFoundHandler((_request, reply) => {
    const answer = shapeA(404, 'rest_no_route', MESSAGES.noRoute);
    void reply.code(404).send(answer.body);
  });
}
