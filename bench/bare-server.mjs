#!/usr/bin/env node
/**
 * The platform's ceiling: a bare node:http server that reads the same POST the bench sends
 * to Souk and answers a fixed small JSON array. Plain JavaScript on purpose, so it runs on
 * bare `node` with no TypeScript loader in the process (nothing but Node.js to measure).
 *
 *   PORT=8090 node bench/bare-server.mjs     prints "bare server listening on PORT" when ready
 */
import { createServer } from 'node:http';
import { pathToFileURL } from 'node:url';

export const BARE_REPLY = '[1000017,1000342,1004711]';

function serve() {
  const reply = Buffer.from(BARE_REPLY);
  const server = createServer((req, res) => {
    // Read the whole body, as Souk must, before answering.
    req.on('data', () => {});
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': reply.length });
      res.end(reply);
    });
  });
  server.keepAliveTimeout = 72_000;
  server.listen(Number(process.env.PORT ?? 0), process.env.HOST ?? '127.0.0.1', () => {
    console.log(`bare server listening on ${server.address().port}`);
  });
  for (const signal of ['SIGINT', 'SIGTERM']) {
    process.once(signal, () => {
      server.close(() => process.exit(0));
      server.closeAllConnections();
    });
  }
}

// The bench imports BARE_REPLY from here; only `node bench/bare-server.mjs` serves.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) serve();
