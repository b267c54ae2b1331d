/**
 * What is never stored (LiveEvent: typing, and the word that blocks changed), fanned out: to this
 * process's listeners at once, and through the store's LiveChannel to the other instances', whose
 * listeners hear it as their own. Listeners are the event streams (stream-hub.ts `sendLive`), the
 * typing gate (domain/chat/typing.ts), and any other publisher that subscribes. Nothing is kept:
 * a listener that was not there, or an instance whose channel was away, misses it (`onGap` says so).
 */
import type { LiveEvent } from '../domain/events.js';
import type { LiveChannel } from '../domain/ports.js';

export class LiveEvents {
  private readonly listeners = new Set<(event: LiveEvent) => void>();
  private readonly gaps = new Set<() => void>();
  private unsubscribe: (() => void) | undefined;

  /** `channel`: to and from the other instances; none where there are none (SQLite, MySQL). */
  constructor(private readonly channel?: LiveChannel) {}

  publish(event: LiveEvent): void {
    this.tell(event);
    this.channel?.publish(JSON.stringify(event));
  }

  /** `onGap`: events from other instances may have been missed. Returns the unsubscribe. */
  subscribe(listener: (event: LiveEvent) => void, onGap: () => void = () => {}): () => void {
    this.listeners.add(listener);
    this.gaps.add(onGap);
    this.unsubscribe ??= this.channel?.subscribe(
      (message) => {
        const event = parseLiveEvent(message);
        if (event) this.tell(event);
      },
      () => {
        for (const gap of this.gaps) gap();
      },
    );
    return () => {
      this.listeners.delete(listener);
      this.gaps.delete(onGap);
    };
  }

  close(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
  }

  private tell(event: LiveEvent): void {
    for (const listener of this.listeners) listener(event);
  }
}

const id = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) > 0;

/** Another instance's message, checked: one that is not a LiveEvent of this version is ignored. */
function parseLiveEvent(message: string): LiveEvent | undefined {
  let e: Record<string, unknown>;
  try {
    e = JSON.parse(message) as Record<string, unknown>;
  } catch {
    return undefined;
  }
  if (e?.type === 'blocks.changed') return { type: 'blocks.changed' };
  if (e?.type === 'conversation.typing' && id(e.to) && id(e.conversationId) && id(e.userId))
    return { type: 'conversation.typing', to: e.to, conversationId: e.conversationId, userId: e.userId };
  return undefined;
}
