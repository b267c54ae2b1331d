/**
 * The password threads: a Piscina pool running thread.ts, started on the first hash to compute and
 * kept while in use (a server that never signs anyone in starts none). Idle threads do not hold the
 * process open.
 */
import { fileURLToPath } from 'node:url';
import type { Piscina } from 'piscina';
import type { PasswordTask, ThreadSettings, VerifyOutcome } from './thread.js';

export interface PasswordThreads {
  verify(password: string, stored: string): Promise<VerifyOutcome>;
  hash(password: string): Promise<string>;
  /** Tasks (verifications and hashes) the threads have finished since they were made. */
  completed(): number;
  close(): Promise<void>;
}

/** Under tsx (the tests) this module is the .ts beside thread.ts; built, the .js beside thread.js. */
const PROGRAM = fileURLToPath(new URL(import.meta.url.endsWith('.ts') ? './thread.ts' : './thread.js', import.meta.url));

/** A thread left idle this long ends; the next task starts one again. */
const IDLE_MS = 60_000;

export function passwordThreads({ threads, nice }: { threads: number } & ThreadSettings): PasswordThreads {
  // Piscina itself is loaded with the first task: a process that hashes nothing never loads it.
  let pool: Piscina | undefined;
  let opening: Promise<Piscina> | undefined;
  const open = () =>
    (opening ??= import('piscina').then(
      ({ Piscina }) =>
        (pool = new Piscina({
          filename: PROGRAM,
          minThreads: 0,
          maxThreads: threads,
          idleTimeout: IDLE_MS,
          workerData: { nice } satisfies ThreadSettings,
        })),
    ));
  const run = async (task: PasswordTask) => (await open()).run(task) as Promise<unknown>;
  return {
    verify: (password, stored) => run({ op: 'verify', password, stored }) as Promise<VerifyOutcome>,
    hash: (password) => run({ op: 'hash', password }) as Promise<string>,
    completed: () => pool?.completed ?? 0,
    close: async () => {
      if (opening) await (await opening).destroy();
    },
  };
}
