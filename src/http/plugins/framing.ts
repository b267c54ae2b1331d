/**
 * An Expect header with anything but 100-continue: Node answers 417 with no body, which is none
 * of the interface's answers. Such a request is served as if the header were absent (RFC 9110
 * lets a server ignore an expectation it does not understand).
 * (Other framing faults, such as a Transfer-Encoding that does not end in chunked, are refused by
 * Node's parser and answered 400 in shape B by plugins/server-options.ts.)
 */
import fp from 'fastify-plugin';

export const framing = fp(
  async (app) => {
    app.server.on('checkExpectation', (request, response) => app.server.emit('request', request, response));
  },
  { name: 'souk-framing', fastify: '5.x' },
);
