/**
 * The bench's event streams, held in a process of their own (bench/streams.ts openStreams forks
 * it): the streams' sockets and reading stay out of the load generator's process.
 */
import { serveAsHolder } from './streams.js';

serveAsHolder();
