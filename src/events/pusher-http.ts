/**
 * One batch_events request to a Pusher app, signed by the official `pusher` library
 * (createSignedQueryString: auth_key, auth_timestamp, body_md5, auth_signature) and sent on the
 * app's kept-alive connections with node:http. The library's own triggerBatch goes through
 * node-fetch, whose request, headers and URL objects cost more than the request itself on a busy
 * server (docs/benchmark.md).
 */
import { request as httpRequest, type Agent } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type Pusher from 'pusher';
import type { PusherApp } from '../domain/pusher.js';

export interface PusherTarget {
  app: PusherApp;
  /** Signs the request (and POST pusher/auth's answers). */
  client: Pusher;
  /** The app's kept-alive connections. */
  agent: Agent;
}

export interface PusherEvent {
  channel: string;
  name: string;
  /** JSON text. */
  data: string;
}

/** How a request failed, in the shape of the library's RequestError: Pusher's status and answer, or the cause. */
export interface PusherRequestFailure {
  status?: number;
  body?: string;
  error?: { name?: string; message?: string };
  /** The connection was a kept-alive one, reset before any answer. */
  reused?: boolean;
}

/** Answers the most of Pusher's answer kept for a failure's text. */
const ANSWER_KEPT = 1000;

/**
 * Resolves when Pusher answered 2xx; rejects with a PusherRequestFailure otherwise, or after
 * `timeoutMs` without an answer. A kept-alive connection the server closed meanwhile is tried once
 * more on a new one, as Node.js advises (`request.reusedSocket`): that is no failure of Pusher's.
 */
export async function triggerBatch(target: PusherTarget, batch: PusherEvent[], timeoutMs: number): Promise<void> {
  try {
    await post(target, batch, timeoutMs);
  } catch (err) {
    if (!(err as { reused?: boolean }).reused) throw err;
    await post(target, batch, timeoutMs);
  }
}

function post(target: PusherTarget, batch: PusherEvent[], timeoutMs: number): Promise<void> {
  const { app, client, agent } = target;
  const body = JSON.stringify({ batch });
  const path = `/apps/${app.appId}/batch_events`;
  const query = client.createSignedQueryString({ method: 'POST', path, body });
  return new Promise<void>((resolve, reject) => {
    const fail = (failure: PusherRequestFailure) => {
      clearTimeout(timer);
      reject(failure);
    };
    const req = (app.useTLS ? httpsRequest : httpRequest)(
      {
        host: app.host,
        port: app.port ?? (app.useTLS ? 443 : 80),
        method: 'POST',
        path: `${path}?${query}`,
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let answer = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          if (answer.length < ANSWER_KEPT) answer += chunk;
        });
        res.on('error', (err) => fail({ error: err }));
        res.on('end', () => {
          const status = res.statusCode ?? 0;
          if (status >= 200 && status < 300) {
            clearTimeout(timer);
            resolve();
          } else fail({ status, body: answer });
        });
      },
    );
    const timer = setTimeout(() => {
      req.destroy();
      fail({ error: { name: 'AbortError', message: 'no answer in time' } });
    }, timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) =>
      fail({ error: err, ...(req.reusedSocket && err.code === 'ECONNRESET' && { reused: true }) }),
    );
    req.end(body);
  });
}
