/**
 * The retention of inactive conversations (CHAT_RETENTION_DAYS), as the plugin's daily clean-up
 * (`remove_inactive_conversation_duration`): a conversation with no message for that many days is
 * deleted with its messages. Every server runs it at start and then daily; the deletions go in
 * batches, each its own transaction, and one server at a time (ModerationRepository
 * .deleteInactiveConversations): a server that finds another one at it skips that round.
 */
import type { UnitOfWork } from './ports.js';

const DAY_MS = 86_400_000;
/** Conversations per transaction, as the plugin's clean-up: short transactions, no long lock. */
export const RETENTION_BATCH = 500;

export interface RetentionPass {
  deleted: number;
  /** Another server was deleting: this one left the round to it. */
  skipped: boolean;
}

/**
 * Deletes the conversations inactive since before `now - days`, batch after batch, until none is
 * left or `stopping()` says to stop (between batches).
 */
export async function deleteInactiveConversations(
  uow: UnitOfWork,
  days: number,
  now: number,
  stopping: () => boolean = () => false,
): Promise<RetentionPass> {
  const before = now - days * DAY_MS;
  let deleted = 0;
  while (!stopping()) {
    const n = await uow.transaction(async (repos) => {
      if (!repos.moderation) throw new Error('this store has no moderation repository');
      return repos.moderation.deleteInactiveConversations(before, RETENTION_BATCH);
    });
    if (n === null) return { deleted, skipped: true };
    deleted += n;
    if (n < RETENTION_BATCH) break;
  }
  return { deleted, skipped: false };
}

export interface RetentionJobOptions {
  uow: UnitOfWork;
  /** The days in force at each pass (a function: an owner may change them while the server runs); 0: no pass. */
  days: number | (() => number);
  everyMs?: number;
  now?: () => number;
  onPass?: (pass: RetentionPass) => void;
  onError: (err: unknown) => void;
}

/** The server's background job: a pass at start, then one every `everyMs` (a day); stop() waits for the pass running. */
export class RetentionJob {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(private readonly options: RetentionJobOptions) {}

  start(): void {
    this.run();
    this.timer = setInterval(() => this.run(), this.options.everyMs ?? DAY_MS);
    this.timer.unref();
  }

  /** Ends the job: no new pass, and the running one stops after its current batch. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  private run(): void {
    if (this.running || this.stopped) return;
    const { uow, now = Date.now, onPass, onError } = this.options;
    const days = typeof this.options.days === 'function' ? this.options.days() : this.options.days;
    if (days <= 0) return;
    this.running = deleteInactiveConversations(uow, days, now(), () => this.stopped)
      .then((pass) => onPass?.(pass), onError)
      .finally(() => (this.running = undefined));
  }
}
