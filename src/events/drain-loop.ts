/**
 * The loop of an outbox's sender (webhooks, pushes, mails): it drains on a timer and whenever
 * kicked, never two drains at once (a kick during a drain runs one more after it), and prunes what
 * is finished on a slower timer. Stopping waits for the drain under way.
 */
export interface DrainLoopOptions {
  drain: () => Promise<void>;
  pollMs: number;
  prune?: { run: () => Promise<void>; everyMs: number };
}

export class DrainLoop {
  private timer: NodeJS.Timeout | undefined;
  private pruner: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private again = false;
  private stopped_ = false;

  constructor(private readonly o: DrainLoopOptions) {}

  /** Once stopped, a drain under way ends after its batch. */
  get stopped(): boolean {
    return this.stopped_;
  }

  start(): void {
    this.timer = setInterval(() => this.kick(), this.o.pollMs);
    this.timer.unref();
    const prune = this.o.prune;
    if (prune) {
      this.pruner = setInterval(() => void prune.run(), prune.everyMs);
      this.pruner.unref();
    }
    this.kick();
  }

  /** Looks at the outbox now (and again after, when a look is already under way). */
  kick(): void {
    if (this.stopped_) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.o.drain().finally(() => {
      this.running = undefined;
      if (this.again) {
        this.again = false;
        this.kick();
      }
    });
  }

  /** Stops both timers and waits for the drain under way. */
  async stop(): Promise<void> {
    this.stopped_ = true;
    clearInterval(this.timer);
    clearInterval(this.pruner);
    await this.running;
  }
}
