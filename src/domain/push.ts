/**
 * Push notifications (issue 21, "Push"; FCM beside Expo, issue 50): the devices' push tokens
 * (Expo's, or Firebase Cloud Messaging registration tokens: told apart by their form), the push
 * outbox the message transaction writes, and the registration use case. src/events/push.ts sends
 * what the outbox holds to Expo's push service and to FCM; src/store implements the ports.
 */
import type { AuditRecord } from './audit.js';

/** A device's push token, as the plugin's `push-notification/register` stores it for the caller. */
export interface PushDevice {
  token: string;
  userId: number;
  /** The plugin's `events` list, as sent (kept and echoed; Souk pushes new messages only). */
  events: string[];
  /** When the token was last registered (epoch ms): a user over the bound loses the oldest. */
  registeredAt: number;
  /** The session that registered it: its sign-in token, as revocations name it (the digest of its jti). */
  session: string;
  /** When that session's token expires (epoch ms): from then on the device may move to another user. */
  sessionExpiresAt: number;
}

export interface PushDeviceRepository {
  /**
   * Stores the token for the user and keeps the user's `maxPerUser` most recently registered
   * tokens, dropping the rest. A token belongs to one user at a time: one another user holds moves
   * only once the session that registered it has ended (expired by `registeredAt`; a sign-out
   * unbinds it, see `unbind`), else nothing changes and the answer is false.
   */
  register(device: PushDevice, maxPerUser: number): Promise<boolean>;
  /** Drops the user's tokens registered with this session (it signed out); how many. */
  unbind(userId: number, session: string): Promise<number>;
  /** The user's tokens, most recently registered first. */
  tokensOf(userId: number): Promise<string[]>;
  /** Drops the user's tokens among `tokens` (Expo or FCM said the device is gone); a token moved to another user stays. */
  drop(userId: number, tokens: string[]): Promise<number>;
}

export type PushStatus = 'pending' | 'sent' | 'skipped' | 'failed';

/** One new message for one recipient, as the push outbox holds it. */
export interface PushDelivery {
  id: number;
  userId: number;
  /** The chat message's id: one row per message and recipient (the outbox's unique key). */
  messageId: number;
  /** The `message.new` DomainEvent, JSON text. */
  payload: string;
  createdAt: number;
  status: PushStatus;
  attempts: number;
  nextAttemptAt: number;
  lastError: string | null;
  /**
   * The devices an earlier attempt reached (a short digest of each token, events/push.ts): a retry leaves them
   * out, so that a message reaches each device once when some of its devices failed.
   */
  reached: string[];
}

/** The push outbox: written with the message (the store's EventRecorder), read by the push sender. */
export interface PushOutbox {
  /** Pending deliveries due by `now`, at most `limit`, each leased until `leaseUntil` (as WebhookOutbox.claimDue). */
  claimDue(now: number, leaseUntil: number, limit: number): Promise<PushDelivery[]>;
  /** The delivery is done: `sent` (Expo took it), `skipped` (the recipient had the conversation open, or no device). */
  finished(id: number, status: 'sent' | 'skipped', note: string | null): Promise<void>;
  /**
   * A failed attempt: retried at `retryAt`, or kept as failed when null. `reached`: every device
   * reached so far (PushDelivery.reached), this attempt's too.
   */
  attemptFailed(id: number, attempts: number, retryAt: number | null, error: string, reached: string[]): Promise<void>;
  /** The deliveries, newest first, of a status when given, with an id below `beforeId` when given (the next page). */
  list(limit: number, filter?: { status?: PushStatus; beforeId?: number }): Promise<PushDelivery[]>;
  /**
   * Sends the given failed deliveries again, due now (the devices reached before stay left out); how
   * many. With `audit`, its row is written in the same transaction when any was sent again.
   */
  retry(ids: number[], now: number, audit?: AuditRecord): Promise<number>;
  /** Forgets the finished deliveries created before `before`; how many. */
  prune(before: number): Promise<number>;
}

/** Where the routes report that a user is looking at a conversation (GET my/chat/conversation). */
export interface ConversationViews {
  viewed(userId: number, conId: number, at: number): void;
}

/** Expo's token forms: `ExponentPushToken[...]`, `ExpoPushToken[...]`. */
const EXPO_TOKEN = /^Expo(nent)?PushToken\[[A-Za-z0-9_\-:.]{1,200}\]$/;

/**
 * An FCM registration token: the app instance's id, a colon, and the token proper (base64url
 * characters, `APA91b...` as Firebase issues them today), at most 255 characters in all (what the
 * devices' tables hold; Firebase's are some 160).
 */
const FCM_TOKEN = /^[A-Za-z0-9_-]{8,64}:[A-Za-z0-9_-]{100,190}$/;

export const isExpoPushToken = (token: string): boolean => EXPO_TOKEN.test(token);
export const isFcmToken = (token: string): boolean => FCM_TOKEN.test(token);

/** Which service a stored token belongs to. */
export const pushService = (token: string): 'expo' | 'fcm' => (isExpoPushToken(token) ? 'expo' : 'fcm');

/**
 * A Google service account's key file (JSON), the fields FCM HTTP v1 needs: the OAuth 2.0
 * JWT-bearer grant is asked of its own `token_uri`. `privateKey` is a secret.
 */
export interface FcmServiceAccount {
  projectId: string;
  clientEmail: string;
  privateKey: string;
  privateKeyId: string | undefined;
  tokenUri: string;
}

/** Most entries of `events` a registration keeps, and their length. */
export const PUSH_EVENTS_MAX = 20;
export const PUSH_EVENT_MAX_LENGTH = 64;

/** `taken`: another user's session that registered the token is still live. */
export type RegisterDeviceError = 'push_token' | 'events' | 'taken';

/** Stores the caller's device token, after checking it and the events list. */
export async function registerPushDevice(
  devices: PushDeviceRepository,
  caller: { userId: number; session: string; sessionExpiresAt: number },
  input: { token: string; events: string[] },
  limits: { devicesPerUser: number; fcm: boolean },
  now: number,
): Promise<{ ok: true; device: PushDevice } | { ok: false; error: RegisterDeviceError }> {
  // An FCM token only where Souk can push through FCM: else it would be stored and never reached.
  if (!isExpoPushToken(input.token) && !(limits.fcm && isFcmToken(input.token))) return { ok: false, error: 'push_token' };
  const events = [...new Set(input.events.map((e) => e.trim()).filter((e) => e !== ''))];
  if (events.length > PUSH_EVENTS_MAX || events.some((e) => e.length > PUSH_EVENT_MAX_LENGTH)) return { ok: false, error: 'events' };
  const device: PushDevice = { token: input.token, events, registeredAt: now, ...caller };
  if (!(await devices.register(device, limits.devicesPerUser))) return { ok: false, error: 'taken' };
  return { ok: true, device };
}
