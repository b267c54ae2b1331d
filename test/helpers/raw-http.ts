/**
 * A raw HTTP/1.1 client over a plain TCP socket, for requests no well-behaved client would send:
 * any bytes in the head, wrong lengths, a head or body sent slowly or never finished.
 */
import { connect, type Socket } from 'node:net';

export interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface RawResult {
  /** The first response on the connection, if any arrived. */
  response: RawResponse | undefined;
  /** Everything the server sent. */
  raw: Buffer;
  /** True when the server closed the connection (rather than the client giving up). */
  closedByServer: boolean;
  /** True when a whole response arrived (the client then closes, even on a kept-alive connection). */
  complete: boolean;
  /** Milliseconds from connecting until the server closed the connection or the client gave up. */
  ms: number;
  error: string | undefined;
}

export function parseResponse(raw: Buffer): RawResponse | undefined {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine = '', ...lines] = raw.subarray(0, end).toString('latin1').split('\r\n');
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(statusLine);
  if (!match) return undefined;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  const length = headers['content-length'];
  if (length !== undefined) body = body.subarray(0, Number(length));
  return { status: Number(match[1]), headers, body: body.toString('utf8') };
}

/** A whole response: its head, and as many body bytes as its Content-Length says. */
function isComplete(raw: Buffer): boolean {
  const end = raw.indexOf('\r\n\r\n');
  if (end < 0) return false;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(raw.subarray(0, end).toString('latin1'));
  return length ? raw.length - (end + 4) >= Number(length[1]) : false;
}

export interface RawOptions {
  /** Give up after this long without the server closing (a hang). */
  timeoutMs?: number;
  /** Pieces sent one after another with this pause between them. */
  pauseMs?: number;
  /** Stop reading once a whole response has arrived, without waiting for the server to close. */
  untilComplete?: boolean;
}

/** Sends the pieces and reads until the server closes the connection (send `Connection: close`). */
export function rawRequest(port: number, pieces: (string | Buffer)[] | string | Buffer, opts: RawOptions = {}): Promise<RawResult> {
  const parts = Array.isArray(pieces) ? pieces : [pieces];
  const timeoutMs = opts.timeoutMs ?? 15_000;
  return new Promise((resolve) => {
    const started = performance.now();
    const chunks: Buffer[] = [];
    let error: string | undefined;
    let settled = false;
    const socket: Socket = connect(port, '127.0.0.1');
    const finish = (closedByServer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const raw = Buffer.concat(chunks);
      const response = parseResponse(raw);
      resolve({
        response,
        raw,
        closedByServer,
        complete: response !== undefined && isComplete(raw),
        ms: performance.now() - started,
        error,
      });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on('data', (d) => {
      chunks.push(d);
      if (opts.untilComplete && isComplete(Buffer.concat(chunks))) finish(false);
    });
    socket.on('end', () => finish(true));
    socket.on('close', () => finish(true));
    socket.on('error', (err) => {
      error = (err as NodeJS.ErrnoException).code ?? err.message;
    });
    socket.on('connect', async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0 && opts.pauseMs) await new Promise((r) => setTimeout(r, opts.pauseMs));
        if (settled || socket.destroyed) return;
        socket.write(part);
      }
      // The client never half-closes: Node's server would abort a request whose client sent FIN.
    });
  });
}

/** A request head plus body, with the headers given (their values sent byte for byte). */
export function httpRequest(method: string, path: string, headers: [string, string | Buffer][], body: string | Buffer = ''): Buffer {
  const head = Buffer.concat([
    Buffer.from(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n`, 'latin1'),
    ...headers.map(([name, value]) =>
      Buffer.concat([Buffer.from(`${name}: `, 'latin1'), Buffer.isBuffer(value) ? value : Buffer.from(value, 'utf8'), Buffer.from('\r\n')]),
    ),
    Buffer.from('\r\n'),
  ]);
  return Buffer.concat([head, Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8')]);
}
