/**
 * The plain HTTP client of the soak and of the benchmark's priming: one JSON POST on a
 * kept-alive agent, and a pool of workers that each send requests until told to stop.
 * (The benchmark's measured load is autocannon's: bench/load.ts.)
 */
import { Agent, request } from 'node:http';

export interface Reply {
  status: number;
  body: string;
}

/** POSTs a JSON body; rejects on a network error or when no reply came within timeoutMs. */
export function postJson(agent: Agent, url: string, headers: Record<string, string>, body: string, timeoutMs = 30_000): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        timeout: timeoutMs,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`timeout after ${timeoutMs / 1000} s`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `concurrency` workers on one kept-alive agent; each calls work(agent) until it returns false. */
export async function withWorkers(concurrency: number, work: (agent: Agent) => Promise<boolean>): Promise<void> {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  try {
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (await work(agent));
      }),
    );
  } finally {
    agent.destroy();
  }
}
