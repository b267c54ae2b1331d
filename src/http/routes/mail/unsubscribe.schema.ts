/** Schemas of GET and POST mail/unsubscribe, the one-click link of a mail (RFC 8058; docs/mail.md). */
import { Type } from '@sinclair/typebox';
import { unsubscribeErrors } from '../errors.schema.js';

const Link = Type.Object({
  user: Type.Optional(Type.String({ description: "The user's id, as the mail's link names it." })),
  sig: Type.Optional(Type.String({ description: "The link's signature." })),
});

const Page = Type.String({
  description: 'An HTML page.',
  examples: ['<!doctype html><html><head><meta charset="utf-8"><title>Unsubscribe</title></head><body>...</body></html>'],
});

export function unsubscribePageSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'unsubscribePage',
    summary: 'The unsubscribe link, opened in a browser',
    description:
      'Shows a page with one button that unsubscribes (a POST to the same address). Opening the link changes nothing: mail scanners open links (RFC 8058).',
    tags: ['notifications'],
    querystring: Link,
    produces: ['text/html'],
    response: { 200: { ...Page, 'x-response-description': 'The confirmation page.' }, ...unsubscribeErrors(limits) },
  };
}

export function unsubscribeSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'unsubscribe',
    summary: 'Unsubscribe from the mails about waiting messages (one click)',
    description:
      'The `List-Unsubscribe-Post: List-Unsubscribe=One-Click` POST of a mail client (RFC 8058), or the page\'s button: turns the mails off for the link\'s user, as `PUT my/notifications {"email": false}`. No credentials: the link is signed for its user and cannot be turned to another. Again is harmless.',
    tags: ['notifications'],
    querystring: Link,
    consumes: ['application/x-www-form-urlencoded', 'application/json'],
    produces: ['text/html'],
    response: { 200: { ...Page, 'x-response-description': 'Unsubscribed.' }, ...unsubscribeErrors(limits) },
  };
}
