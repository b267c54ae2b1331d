/**
 * What the console reads that the chat never does (docs/console.md): the day's activity for the
 * overview, a listing's conversations and users by display name. Each answers from an index or
 * from a bounded window of the primary key, so that a page costs the same on a marketplace of
 * 100,000 users as on a small one.
 */
import { TZDate } from '@date-fns/tz';
import type { Conversation, User } from '../model.js';
import type { Repositories } from '../ports.js';

/** The latest rows an activity count looks at (by id); beyond, the page says "10000+". */
export const ACTIVITY_WINDOW = 10_000;

export interface ActivityCounts {
  /** Messages sent since the time asked, among the latest `window` messages. */
  messages: number;
  /** Distinct senders of those messages. */
  senders: number;
  /** Conversations started since the time asked, among the latest `window` conversations. */
  conversations: number;
}

export interface ConsoleReads {
  /**
   * The messages and conversations created since `since` (epoch ms), counted among the latest
   * `window` rows of each by id: ids grow with time, so a count below `window` is exact and one
   * at `window` means at least that many.
   */
  activitySince(since: number, window: number): Promise<ActivityCounts>;
  /** The ids of the conversations about a listing (left ones too), newest first. */
  conversationIdsAbout(listingId: number, offset: number, limit: number): Promise<number[]>;
  /** The ids of the users whose display name is `name`, whatever its case, lowest first. */
  userIdsNamed(name: string, limit: number): Promise<number[]>;
}

/**
 * The IANA zone `zone` names, as the runtime spells it, if the runtime knows it (an alias such as
 * Asia/Calcutta too), else UTC: the browser's word is checked, not trusted.
 */
export function knownZone(zone: string | undefined): string {
  if (zone === undefined || zone.length > 64) return 'UTC';
  try {
    return new Intl.DateTimeFormat('en-US', { timeZone: zone }).resolvedOptions().timeZone;
  } catch {
    return 'UTC';
  }
}

/**
 * The first instant of the day `now` falls in, in `zone` (an IANA name known to `knownZone`): the
 * console's "today", as the staff member's clock has it. A day whose midnight a clock change skips
 * starts at its first instant.
 */
export function startOfDay(now: number, zone: string): number {
  const day = new TZDate(now, zone);
  day.setHours(0, 0, 0, 0);
  return day.getTime();
}

export interface Activity {
  messages: string;
  activeUsers: string;
  conversations: string;
}

/** A count at the window's edge reads "10000+". */
const bounded = (n: number, window: number) => (n >= window ? `${window}+` : String(n));

/** Today's messages, the users who sent them and the conversations started today (since 00:00 in `zone`). */
export async function activityToday(reads: ConsoleReads, now: number, zone: string): Promise<Activity> {
  const counts = await reads.activitySince(startOfDay(now, zone), ACTIVITY_WINDOW);
  const messagesFull = counts.messages >= ACTIVITY_WINDOW;
  return {
    messages: bounded(counts.messages, ACTIVITY_WINDOW),
    // Among a full window the senders are only those of its messages: at least as many.
    activeUsers: messagesFull ? `${counts.senders}+` : String(counts.senders),
    conversations: bounded(counts.conversations, ACTIVITY_WINDOW),
  };
}

/** A listing's conversations shown a page at a time. */
export async function conversationsAbout(
  reads: ConsoleReads,
  repos: Pick<Repositories, 'conversations'>,
  listingId: number,
  offset: number,
  limit: number,
): Promise<Conversation[]> {
  const ids = await reads.conversationIdsAbout(listingId, offset, limit);
  const found = await Promise.all(ids.map((id) => repos.conversations.findById(id)));
  return found.filter((c): c is Conversation => c !== undefined);
}

/** Users found by display name, at most this many. */
export const NAMED_USERS = 20;

export async function usersNamed(reads: ConsoleReads, repos: Pick<Repositories, 'users'>, name: string): Promise<User[]> {
  const ids = await reads.userIdsNamed(name, NAMED_USERS);
  const found = await Promise.all(ids.map((id) => repos.users.findById(id)));
  return found.filter((u): u is User => u !== undefined);
}
