/**
 * Where a command reads its settings and input and writes its output: the process's own
 * (environment, standard streams) when `souk` runs, or the caller's when a command line runs inside
 * another process (the tests run most of theirs so, sharing one load of Souk). Every command reaches
 * them through `cliIo()`, never through `process` directly. `souk` itself never enters
 * `withCliIo`: under Node.js 22 an AsyncLocalStorage in use turns on promise hooks for the rest of
 * the process, which `souk serve` would pay on every request.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

export interface CliIo {
  env: NodeJS.ProcessEnv;
  stdin: AsyncIterable<Buffer | string> | Iterable<Buffer | string>;
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

const PROCESS_IO: CliIo = {
  get env() {
    return process.env;
  },
  get stdin() {
    return process.stdin;
  },
  get stdout() {
    return process.stdout;
  },
  get stderr() {
    return process.stderr;
  },
};

const current = new AsyncLocalStorage<CliIo>();

/** The command line's input and output: the process's, unless `withCliIo` says otherwise. */
export function cliIo(): CliIo {
  return current.getStore() ?? PROCESS_IO;
}

/** Runs `fn` with `io` as every command's input and output, for as long as its work lasts. */
export function withCliIo<T>(io: CliIo, fn: () => Promise<T>): Promise<T> {
  return current.run(io, fn);
}
