/**
 * E-mail when a message waits (issue 31, docs/mail.md): the mail outbox the message transaction
 * writes (one pending row per recipient and conversation, however many messages come), the users'
 * presence (who is online), their choice of mail, and the rule of whom Souk may mail.
 * src/events/mail.ts sends what the outbox holds; src/store implements the ports.
 */
import type { AuditRecord } from './audit.js';
import type { Conversation, User } from './model.js';
import type { Repositories } from './ports.js';
import { blockedEitherWay } from './privacy/common.js';

export type MailStatus = 'pending' | 'sent' | 'skipped' | 'failed';

/** One mail to one recipient about one conversation: the unread messages from `firstMessageId` to `lastMessageId`. */
export interface MailDelivery {
  id: number;
  userId: number;
  conId: number;
  firstMessageId: number;
  /** The newest message queued in it; grows while the row is pending. */
  lastMessageId: number;
  createdAt: number;
  status: MailStatus;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  sentAt: number | null;
}

/** The mail outbox: written with the message (the store's EventRecorder), read by the mail sender and the CLI. */
export interface MailOutbox {
  /** Pending mails due by `now`, at most `limit`, each leased until `leaseUntil` (as WebhookOutbox.claimDue). */
  claimDue(now: number, leaseUntil: number, limit: number): Promise<MailDelivery[]>;
  /** When the last mail about the conversation went to the user (epoch ms), if one did. */
  lastSentAt(userId: number, conId: number): Promise<number | undefined>;
  /** Not yet: the mail waits until `until` (MAIL_MIN_INTERVAL_S), no attempt counted. */
  postpone(id: number, until: number): Promise<void>;
  /**
   * The mail is done for the messages up to `upTo`: `sent`, or `skipped` (read, online, not to be
   * mailed). Messages queued in it meanwhile, after `upTo`, move to a new pending mail due at `nextDueAt`.
   */
  finish(id: number, status: 'sent' | 'skipped', note: string | null, upTo: number, now: number, nextDueAt: number): Promise<void>;
  /** A failed attempt: retried at `retryAt`, or kept as failed when null. */
  attemptFailed(id: number, attempts: number, retryAt: number | null, error: string): Promise<void>;
  /** The mails, newest first, of a status when given, with an id below `beforeId` when given (the next page). */
  list(filter: { status?: MailStatus; beforeId?: number; limit: number }): Promise<MailDelivery[]>;
  /**
   * Sends the given failed mails again (all failed ones when `ids` is empty); how many. With
   * `audit`, its row is written in the same transaction when any was sent again.
   */
  retry(ids: number[], now: number, audit?: AuditRecord): Promise<number>;
  /** Forgets the finished mails created before `before`; how many. */
  prune(before: number): Promise<number>;
}

/**
 * Until when each user counts as online (seen in an authenticated request or holding a stream,
 * plus ONLINE_WINDOW_S), shared by every instance: on a WordPress site the plugin's own
 * `online_status` user meta, which holds the same (the time the user stops being online).
 */
export interface PresenceRepository {
  /** Records that the user is online until `until` (epoch ms); a later time already stored stays. */
  seen(userId: number, until: number): Promise<void>;
  /** `seen` for each of several users (distinct ids), in as few statements as the store allows. */
  seenAll(entries: readonly { userId: number; until: number }[]): Promise<void>;
  /** Until when the user is online (epoch ms), if ever recorded. */
  onlineUntil(userId: number): Promise<number | undefined>;
  /** Those of `others` who share a conversation with the user (GET my/chat/presence shows only them). */
  chatPartners(userId: number, others: number[]): Promise<number[]>;
}

/** Each user's choice of e-mail notifications; on unless they turned it off. */
export interface MailPreferenceRepository {
  emailOn(userId: number): Promise<boolean>;
  setEmail(userId: number, on: boolean): Promise<void>;
  /** Those of the users who hid their presence (PUT my/notifications `show_presence` false): shown offline to everyone. */
  hidingPresence(userIds: number[]): Promise<Set<number>>;
  setShowPresence(userId: number, shown: boolean): Promise<void>;
}

/** What the mail sender did since the start, for the metrics (docs/operations.md). */
export interface MailStats {
  sent: number;
  skipped: number;
  /** Attempts the SMTP server refused, or that found no server. */
  failedAttempts: number;
  /** Mails kept as failed once their retries ran out. */
  failed: number;
}

/** Who the mail is from: the site's name and address (blogname, admin_email on WordPress). */
export interface MailSenderIdentity {
  name: string;
  address: string;
}

/** Why a mail is not sent: the reason kept in the outbox's note. */
export type MailRefusal =
  | 'no e-mail address'
  | 'recipient disabled'
  | 'sender disabled'
  | 'conversation deleted'
  | 'e-mail notifications off'
  | 'no such user'
  | 'blocked';

/**
 * Whether the recipient may be mailed about the sender's messages in the conversation, or why not:
 * the one place this rule lives. Asked when the mail is due, not when the message came: a user
 * disabled or erased since is neither mailed nor mailed about (an erased user stays disabled,
 * domain/moderation.ts); a block between the two refuses whichever side blocked.
 */
export async function mayMail(
  repos: Repositories,
  preferences: MailPreferenceRepository,
  recipient: User | undefined,
  sender: User | undefined,
  conversation: Conversation,
): Promise<MailRefusal | null> {
  if (!recipient || !sender) return 'no such user';
  if (recipient.disabled) return 'recipient disabled';
  // A sender disabled (or erased) after writing: what they wrote waits for the operator, not for a mail.
  if (sender.disabled) return 'sender disabled';
  if (recipient.email.trim() === '') return 'no e-mail address';
  const recipientDeleted = conversation.senderId === recipient.id ? conversation.senderDelete : conversation.recipientDelete;
  if (recipientDeleted) return 'conversation deleted';
  if (!(await preferences.emailOn(recipient.id))) return 'e-mail notifications off';
  // Either way: a mail would tell the blocker of the blocked user's words, or the blocked of the blocker's.
  if (await blockedEitherWay(repos, recipient.id, sender.id)) return 'blocked';
  return null;
}

/** GET my/notifications: the choice of mail, and whether others see the user's presence (GET my/chat/presence). */
export async function notificationSettings(
  preferences: MailPreferenceRepository,
  userId: number,
): Promise<{ email: boolean; showPresence: boolean }> {
  const [email, hiding] = await Promise.all([preferences.emailOn(userId), preferences.hidingPresence([userId])]);
  return { email, showPresence: !hiding.has(userId) };
}

/** PUT my/notifications: the choices given change, then all of them as stored. */
export async function setNotificationSettings(
  preferences: MailPreferenceRepository,
  userId: number,
  choices: { email?: boolean | undefined; showPresence?: boolean | undefined },
): Promise<{ email: boolean; showPresence: boolean }> {
  if (choices.email !== undefined) await preferences.setEmail(userId, choices.email);
  if (choices.showPresence !== undefined) await preferences.setShowPresence(userId, choices.showPresence);
  return notificationSettings(preferences, userId);
}

/** PUT my/notifications, and the unsubscribe link (email false). */
export async function setEmailNotifications(
  preferences: MailPreferenceRepository,
  userId: number,
  email: boolean,
): Promise<{ email: boolean }> {
  await preferences.setEmail(userId, email);
  return { email };
}
