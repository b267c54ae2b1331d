/** A Server-Sent Events client for tests: a real socket, the events as they arrive, parsed per the spec. */
import { request, type IncomingHttpHeaders } from 'node:http';

export interface SseEvent {
  id: string | undefined;
  event: string;
  data: string;
}

export class SseClient {
  readonly events: SseEvent[] = [];
  comments = 0;
  closed = false;
  private buffer = '';
  private read = 0;
  private waiters: (() => void)[] = [];

  private constructor(
    readonly status: number,
    readonly headers: IncomingHttpHeaders,
    readonly body: string,
    private readonly destroyFn: () => void,
  ) {}

  /** Opens `url`; resolves with the response head (and the whole body when it is not a stream). */
  static open(url: string, headers: Record<string, string> = {}): Promise<SseClient> {
    return new Promise((resolve, reject) => {
      const req = request(url, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
        res.setEncoding('utf8');
        if (!String(res.headers['content-type']).startsWith('text/event-stream')) {
          let body = '';
          res.on('data', (c: string) => (body += c));
          res.on('end', () => resolve(new SseClient(res.statusCode ?? 0, res.headers, body, () => req.destroy())));
          return;
        }
        const client = new SseClient(res.statusCode ?? 0, res.headers, '', () => req.destroy());
        res.on('data', (chunk: string) => client.feed(chunk));
        const closed = () => {
          client.closed = true;
          client.wake();
        };
        res.on('close', closed);
        res.on('error', closed);
        resolve(client);
      });
      req.on('error', reject);
      req.end();
    });
  }

  /** The next event not yet taken, within `ms`. */
  async next(ms = 5000): Promise<SseEvent> {
    const deadline = Date.now() + ms;
    while (this.read >= this.events.length) {
      if (this.closed) throw new Error('the stream closed');
      if (Date.now() > deadline) throw new Error(`no event within ${ms} ms`);
      await this.wait(deadline - Date.now());
    }
    return this.events[this.read++]!;
  }

  /** The next `n` events. */
  async take(n: number, ms = 5000): Promise<SseEvent[]> {
    const out: SseEvent[] = [];
    for (let i = 0; i < n; i++) out.push(await this.next(ms));
    return out;
  }

  /** Asserts that no further event arrives within `ms`. */
  async nothingWithin(ms: number): Promise<void> {
    await new Promise((r) => setTimeout(r, ms));
    if (this.read < this.events.length) throw new Error(`unexpected event: ${JSON.stringify(this.events[this.read])}`);
  }

  async waitClosed(ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!this.closed) {
      if (Date.now() > deadline) throw new Error(`the stream stayed open ${ms} ms`);
      await this.wait(deadline - Date.now());
    }
  }

  async waitComments(n: number, ms = 5000): Promise<void> {
    const deadline = Date.now() + ms;
    while (this.comments < n) {
      if (Date.now() > deadline || this.closed) throw new Error(`${this.comments} comments, not ${n}`);
      await this.wait(deadline - Date.now());
    }
  }

  close(): void {
    this.destroyFn();
  }

  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, Math.max(1, ms));
      this.waiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const w of waiters) w();
  }

  private feed(chunk: string): void {
    this.buffer += chunk;
    let end: number;
    while ((end = this.buffer.indexOf('\n\n')) >= 0) {
      const block = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      let id: string | undefined;
      let event = 'message';
      const data: string[] = [];
      let fields = 0;
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          this.comments++;
          continue;
        }
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'id') id = value;
        else if (name === 'event') event = value;
        else if (name === 'data') data.push(value);
        else continue;
        fields++;
      }
      if (fields > 0 && data.length > 0) this.events.push({ id, event, data: data.join('\n') });
    }
    this.wake();
  }
}
