/**
 * POST my/chat/typing (issue 50): the caller is typing in a conversation; the other participant's
 * streams hear `conversation.typing`. Nothing is stored, and nothing crosses a block or goes to a
 * disabled user. At most one event every TYPING_EVERY_MS per conversation and sender: more is
 * answered alike and sends nothing.
 *
 * A typing event reads no database: whether the caller takes part, who the other participant is,
 * and whether the two may talk (neither blocked the other, the other not disabled and still in the
 * conversation) is read once and kept for CHECK_TTL_MS. Participants never change; a block made or
 * lifted on any instance publishes `blocks.changed`, which forgets every kept answer at once on
 * every instance (and so does a gap in what the instances hear of each other); a user disabled by
 * moderation is seen within the TTL. The limit and the kept answers are this instance's, in memory.
 */
import type { LiveEvent } from '../events.js';
import type { Conversation, User } from '../model.js';
import type { Repositories } from '../ports.js';

export const TYPING_EVERY_MS = 3000;
/** How long a conversation's answer for a sender is kept. */
const CHECK_TTL_MS = 60_000;
/** Most (conversation, sender) pairs remembered; beyond them the least recently used goes. */
const TRACKED = 50_000;

export type TypingResult = { ok: true; sent: boolean } | { ok: false; error: 'forbidden' };

export interface TypingOptions {
  repos: Pick<Repositories, 'conversations' | 'blocks'>;
  findUser: (id: number) => Promise<User | undefined>;
  publish: (event: LiveEvent) => void;
  now?: () => number;
}

/** The kept answer: `forbidden` (not the sender's conversation), or to whom typing goes (null: nobody). */
type Check = { forbidden: true; until: number } | { forbidden: false; to: number | null; until: number };

export class TypingGate {
  private readonly checks = new Map<string, Check>();
  private readonly lastSent = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly o: TypingOptions) {
    this.now = o.now ?? Date.now;
  }

  /** A block changed, or events from other instances may have been missed: every kept answer goes. */
  forgetChecks(): void {
    this.checks.clear();
  }

  async typing(userId: number, conId: number): Promise<TypingResult> {
    const key = `${conId}:${userId}`;
    const now = this.now();
    let check = this.checks.get(key);
    if (check === undefined || now >= check.until) {
      check = await this.check(userId, conId, now);
      remember(this.checks, key, check);
    }
    if (check.forbidden) return { ok: false, error: 'forbidden' };
    const last = this.lastSent.get(key);
    if (last !== undefined && now - last < TYPING_EVERY_MS) return { ok: true, sent: false };
    if (check.to === null) return { ok: true, sent: false };
    remember(this.lastSent, key, now);
    this.o.publish({ type: 'conversation.typing', to: check.to, conversationId: conId, userId });
    return { ok: true, sent: true };
  }

  private async check(userId: number, conId: number, now: number): Promise<Check> {
    const until = now + CHECK_TTL_MS;
    const conversation = await this.o.repos.conversations.findById(conId);
    if (!conversation || (conversation.senderId !== userId && conversation.recipientId !== userId)) return { forbidden: true, until };
    return { forbidden: false, to: await this.recipient(conversation, userId), until };
  }

  /** The other participant, when typing may reach them. */
  private async recipient(conversation: Conversation, userId: number): Promise<number | null> {
    const mine = conversation.senderId === userId;
    const other = mine ? conversation.recipientId : conversation.senderId;
    const left = mine ? conversation.recipientDelete : conversation.senderDelete;
    if (left) return null;
    const [user, blocked] = await Promise.all([this.o.findUser(other), this.o.repos.blocks.between(userId, other)]);
    return user && !user.disabled && !blocked ? other : null;
  }
}

/** Sets the entry as the most recently used, forgetting the least recently used beyond TRACKED. */
function remember<V>(map: Map<string, V>, key: string, value: V): void {
  map.delete(key);
  map.set(key, value);
  if (map.size > TRACKED) map.delete(map.keys().next().value!);
}
