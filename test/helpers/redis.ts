/**
 * The real Redis of the rate-limit tests (TEST_REDIS_URL, else 127.0.0.1:6379). Tests that need it
 * are skipped, with the reason, when it does not answer PING, except under CI=true where they run
 * (and fail) so that CI never passes without them.
 */
import { randomBytes } from 'node:crypto';
import { createConnection } from 'node:net';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function redisReachable(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = createConnection(Number(port || 6379), hostname);
    // Generous: under the suite's load a PING has taken over a second, and a skipped test proves nothing.
    // A Redis that is not there refuses the connection at once.
    socket.setTimeout(5000, () => (socket.destroy(), resolve(false)));
    socket.once('connect', () => {
      socket.write('PING\r\n');
      socket.once('data', (d) => (socket.destroy(), resolve(d.toString().startsWith('+PONG'))));
    });
    socket.once('error', () => resolve(false));
  });
}

const redisUp = await redisReachable(REDIS_URL);

/** The `skip` option of a describe() that needs Redis. */
export const redisSkip: string | false =
  redisUp || process.env.CI === 'true' ? false : `Redis is not reachable at ${REDIS_URL} (these tests are required under CI=true)`;

/** A key prefix of its own for one test, so tests sharing the Redis never see each other's counters. */
export const redisPrefix = () => `souk-test:${process.pid}:${randomBytes(6).toString('hex')}:`;
