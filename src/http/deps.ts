import type { TunableValues } from '../domain/tunables.js';
import type { AuthDeps } from '../auth/authenticate.js';
import type { PasswordStats } from '../auth/passwords.js';
import type { RevokedTokens } from '../auth/revoked-tokens.js';
import type { SignInDeps } from '../domain/sign-in.js';
import type { UserLookup } from '../auth/user-cache.js';
import type { ChatLimits } from '../domain/chat/common.js';
import type { AppConfig } from '../domain/config.js';
import type { ChatReadDeps } from '../domain/chat/common.js';
import type { EventStreams, LiveEvent } from '../domain/events.js';
import type { TypingGate } from '../domain/chat/typing.js';
import type { ChatPresenceDeps } from '../domain/chat/presence.js';
import type { OfferRules } from '../domain/chat/offer.js';
import type { EditRules } from '../domain/chat/message.js';
import type { WordScreen } from '../domain/safety/words.js';
import type { EventTicketRepository, FavouriteListRepository, StoreHealth, UnitOfWork } from '../domain/ports.js';
import type { MailPreferenceRepository, MailStats } from '../domain/mail.js';
import type { PusherStats } from '../domain/pusher.js';
import type { ConversationViews, PushDeviceRepository } from '../domain/push.js';
import type { Presentation } from '../present/presentation.js';
import type { FileDeps } from './uploads.js';
import type { ServerApiDeps } from './routes/server/common.js';
import type { ConsoleDeps } from './routes/console/common.js';

/** What the routes are given: the ports they use, the auth pipeline's needs, users, limits and presentation settings. */
export interface RouteDeps {
  /** The use cases' transactions. */
  uow: UnitOfWork;
  /** The database's health: readiness, pool, and which failures are answered 503. */
  health: StoreHealth;
  auth: AuthDeps;
  /** Users' profiles, cached until the catalog changes (auth/user-cache.ts); also the auth's lookup. */
  findUser: UserLookup;
  limits: ChatLimits;
  /** How long, and whether after it was read, a sender may correct a message (PATCH my/chat/message); absent: the settings' defaults. */
  messageEdits?: EditRules;
  /** Offers' expiry, bounds and daily count (my/chat/offer, domain/chat/offer.ts). */
  offers: OfferRules;
  /** The `bad_words` setting in force, for the text of a start and a message. */
  wordScreen: () => WordScreen;
  /** The abuse limits and the retention in force (the stored settings, else the environment's); absent: the environment's. */
  tunables?: () => TunableValues;
  /** Largest accepted request body in bytes (documented in the 413 response). */
  bodyLimit: number;
  presentation: Presentation;
  /** The chat's reads (GET my/chat, my/chat/check, my/chat/conversation). */
  chatReads: ChatReadDeps;
  /** GET config's settings, read again at most every SETTINGS_REFRESH_MS (domain/config.ts, CachedAppConfig). */
  appConfig: { get(): Promise<AppConfig> };
  /** The favourites list's reads (GET my/favourites). */
  favouriteLists: FavouriteListRepository;
  /** Sign-in and sign-out: accounts and passwords, revoked tokens, the lifetime of a sign-in's token. */
  accounts: SignInDeps & { revoked: RevokedTokens; tokenTtlS: number };
  /** What the password threads did, for the metrics; absent in tests that build deps by hand. */
  passwordStats?: () => PasswordStats;
  /** GET my/chat/presence: who is online, who shares a conversation, who hid it; absent where the store keeps no presence. */
  presence?: Omit<ChatPresenceDeps, 'repos' | 'findUser'>;
  /** POST my/chat/typing's gate; absent without event streams. */
  typing?: TypingGate;
  /** What is never stored, to every instance (events/live.ts); absent without event streams. */
  live?: { publish(event: LiveEvent): void };
  /** The event streams (GET my/events) and their tickets; absent where the store keeps no event log. */
  events?: { streams: EventStreams; tickets: EventTicketRepository; ticketTtlS: number };
  /**
   * Push notifications (push-notification/register): the devices, where reads of a conversation
   * are reported (no push while it is in view), the bound per user. Absent where the store keeps
   * none or PUSH_NOTIFICATIONS is false. `fcm`: FCM registration tokens are taken too (a service
   * account is configured).
   */
  push?: { devices: PushDeviceRepository; views: ConversationViews; devicesPerUser: number; fcm: boolean };
  /** Files uploaded with messages (http/uploads.ts); absent in tests that build deps by hand: multipart is then refused. */
  files?: FileDeps;
  /** E-mail (my/notifications, mail/unsubscribe): the users' choices and the key of the unsubscribe links. */
  mail?: { preferences: MailPreferenceRepository; unsubscribeKey: string };
  /** What the mail sender did, for the metrics (with SMTP_URL). */
  mailStats?: () => MailStats;
  /** The server API (docs/server-api.md): its keys and the operator's use cases; absent in tests that build deps by hand. */
  server?: ServerApiDeps;
  /** The staff console (docs/console.md); absent with CONSOLE_ENABLED=false. */
  console?: ConsoleDeps;
  /**
   * PUSHER_CHANNELS=private: the Pusher app in effect (POST pusher/auth signs with it); absent with
   * public channels. `current()` is undefined while no app is set.
   */
  pusher?: { current(): { client: { authorizeChannel(socketId: string, channel: string): { auth: string } } } | undefined };
  /** What the Pusher sender did, for the metrics (with a Pusher app). */
  pusherStats?: { stats: () => PusherStats; takeLatencies: () => number[] };
}
