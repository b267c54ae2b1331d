/** Starts Souk: opens the store, migrates, loads the shared settings and serves the interface. */
import type { FastifyInstance } from 'fastify';
import { apiBase, ConfigError, databaseTarget, parseMailbox, type Config } from './config.js';
import { mailUnsubscribeKey, unsubscribeSignature } from './auth/mail-unsubscribe.js';
import { MailSender } from './events/mail.js';
import { Presence } from './events/presence.js';
import { listingUrl } from './present/listing.js';
import { CLASSIFIED_LISTING_SECRET, isWordpressToken } from './auth/authenticate.js';
import { TokenVerifier } from './auth/jwt.js';
import { defaultPasswordConcurrency, passwordHasher } from './auth/passwords.js';
import { RevokedTokens } from './auth/revoked-tokens.js';
import { buildApp } from './http/app.js';
import type { RouteDeps } from './http/deps.js';
import type { LogDestination } from './http/plugins/logging.js';
import { timeFormatter } from './present/time.js';
import {
  BADGES,
  CachedAppConfig,
  defaultBadge,
  WORDPRESS_DATE_FORMAT,
  WORDPRESS_START_OF_WEEK,
  WORDPRESS_TIME_FORMAT,
  type MarketplaceSettings,
} from './domain/config.js';
import { CONSOLE_SESSION_KEY, LiveSettings, newSecret } from './auth/settings.js';
import type { OperatorDeps } from './domain/operator/context.js';
import type { PasswordHasher } from './domain/sign-in.js';
import { SITE_ADMIN_CAPABILITY } from './domain/staff/staff.js';
import { liveWordScreen } from './domain/safety/words.js';
import { openMigratedStore, type Store } from './store/index.js';
import type { SitePresentation } from './domain/ports.js';
import { cachedLoginLookup, cachedUserLookup } from './auth/user-cache.js';
import { fileAddressSigning, type FileAddressSigning } from './auth/file-addresses.js';
import { shutdownOnSignals } from './shutdown.js';
import { loggedPayloadJson } from './events/payloads.js';
import { StreamHub } from './events/stream-hub.js';
import { LiveEvents } from './events/live.js';
import { TypingGate } from './domain/chat/typing.js';
import { WebhookSender } from './events/webhooks.js';
import { PushReceipts } from './events/push-receipts.js';
import { PushSender, RecentViews } from './events/push.js';
import { FcmClient } from './events/fcm.js';
import { LivePusherApp, PusherSender } from './events/pusher.js';
import { closeFileStorage, localFolder, openFileStorage } from './store/files/open.js';
import { sweepEvery } from './domain/files/sweep.js';
import { UploadAdmission, type FileDeps } from './http/uploads.js';
import { join } from 'node:path';
import { RetentionJob } from './domain/retention.js';
import { liveTunables, type TunableValues } from './domain/tunables.js';
import { ServerKeys } from './auth/server-keys.js';
import { operatorDeps } from './operator-deps.js';
import { deleteMessageFiles } from './domain/files/sweep.js';

export interface Souk {
  app: FastifyInstance;
  store: Store;
  settings: LiveSettings;
  tokens: TokenVerifier;
  revoked: RevokedTokens;
  /** The event streams in this process; absent where the store keeps no event log. */
  streams: StreamHub | undefined;
  /** What is never stored (typing), fanned out to every instance; absent without event streams. */
  live: LiveEvents | undefined;
  /** The push notifications' sender; absent where the store keeps no push outbox or PUSH_NOTIFICATIONS is false. */
  push: PushSender | undefined;
  /** The mail sender; absent without SMTP_URL or where the store keeps no mail outbox. */
  mail: MailSender | undefined;
  /** The server API's keys in force, read again every SETTINGS_REFRESH_MS. */
  serverKeys: ServerKeys;
  /** The Pusher sender; absent where no Pusher app can be set (no PUSHER_URL, not a WordPress site). */
  pusher: PusherSender | undefined;
  /** The Pusher app in force: PUSHER_URL's, or the site's, read again every SETTINGS_REFRESH_MS. */
  pusherApps: LivePusherApp;
  close(): Promise<void>;
}

const DAY_MS = 86_400_000;

/** The audit log's rows older than AUDIT_RETENTION_DAYS go: at start, then daily. stop() waits for the pass running. */
function auditPruning(config: Config, store: Store, log: () => FastifyInstance['log'] | undefined): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  const prune = () => {
    running = store.audit
      .prune(Date.now() - config.auditRetentionDays * DAY_MS)
      .catch((err) => log()?.error({ err }, 'audit log pruning failed'));
  };
  prune();
  const timer = setInterval(prune, DAY_MS);
  timer.unref();
  return async () => {
    clearInterval(timer);
    await running;
  };
}

/** The server API's routes' needs (docs/server-api.md): its keys, the operator's use cases, its limits. */
function serverApi(config: Config, store: Store, settings: LiveSettings, deps: RouteDeps, keys: ServerKeys): RouteDeps['server'] {
  return {
    keys,
    operator: operatorDeps(store, {
      tokenKeys: () => settings.current(),
      // The files of removed messages go from the storage the uploads use (none without it).
      deleteFiles: async (attachments) => {
        if (deps.files && attachments.length > 0) await deleteMessageFiles(deps.files.storage, deps.files.references, attachments);
      },
      tokenMaxTtlS: config.tokenMaxTtlS,
    }),
    importLimit: config.serverApiImportLimit,
    tokenTtlS: Math.min(config.loginTokenTtlS, config.tokenMaxTtlS),
  };
}

/** The console's key (generated per installation, as the token keys are) and needs. */
async function staffConsole(
  config: Config,
  store: Store,
  operator: OperatorDeps,
  passwords: PasswordHasher,
): Promise<RouteDeps['console']> {
  await store.settings.setIfAbsent(CONSOLE_SESSION_KEY, newSecret());
  const key = (await store.settings.all())[CONSOLE_SESSION_KEY];
  if (!key) throw new Error('the console session key could not be stored');
  return {
    staff: store.staff,
    operator,
    findUserByName: async (name) => (await store.accounts.findForSignIn(name))?.user,
    reads: store.consoleReads,
    // A WordPress site's administrators sign in with the site's password (docs/console.md).
    ...(store.siteCapabilities && {
      siteAdmins: {
        async find(name: string) {
          const found = await store.accounts.findForSignIn(name);
          if (!found || found.user.disabled || found.user.email === '') return undefined;
          if (!(await store.siteCapabilities!.holds(found.user.id, SITE_ADMIN_CAPABILITY))) return undefined;
          return { email: found.user.email.toLowerCase(), login: found.user.login, passwordHash: found.passwordHash };
        },
        verify: async (password: string, hash: string) => (await passwords.verify(password, hash)).ok,
      },
    }),
    sessionKey: Buffer.from(key, 'base64url'),
    idleTimeoutMs: config.consoleIdleTimeoutS * 1000,
    consoleUrl: config.consoleUrl,
    settings: store.settings,
    tunableDefaults: tunableDefaults(config),
    environment: [
      ['SMTP_URL (mail)', config.mail.smtpUrl === undefined ? 'off' : 'on'],
      ['AUDIT_RETENTION_DAYS', String(config.auditRetentionDays)],
    ],
    now: Date.now,
  };
}

function routeDeps(
  config: Config,
  store: Store,
  settings: LiveSettings,
  tokens: TokenVerifier,
  revoked: RevokedTokens,
  site: SitePresentation | undefined,
  fileAddresses: FileAddressSigning | undefined,
): RouteDeps {
  const findUser = cachedUserLookup((id) => store.repos.users.findById(id), settings.catalogVersion, config.userCacheSize);
  const passwords = passwordHasher({
    concurrency: config.passwordConcurrency || defaultPasswordConcurrency(),
    queue: config.signInQueue,
    nice: config.passwordNice,
  });
  const wordScreen = liveWordScreen(settings.stored);
  return {
    tunables: liveTunables(settings.stored, tunableDefaults(config)),
    uow: store,
    health: store,
    auth: {
      settings: settings.current,
      verifier: tokens,
      findUser,
      isRevoked: revoked.has,
      // ACCEPT_WORDPRESS_TOKENS: the site's tokens name their user by login (docs/running-beside-wordpress.md, "Tokens").
      ...(config.acceptWordpressTokens
        ? {
            findUserByLogin: cachedLoginLookup(
              (login) => store.accounts.findForSignIn(login),
              findUser,
              settings.catalogVersion,
              config.userCacheSize,
            ),
          }
        : {}),
    },
    findUser,
    limits: {
      textMaxLength: config.textMaxLength,
      maxFiles: config.maxFiles,
      filesAddresses: [config.files.url, ...(config.files.s3PublicUrl ? [config.files.s3PublicUrl] : [])],
      wordScreen,
    },
    messageEdits: { windowMs: config.messageEditWindowS * 1000, afterRead: config.messageEditAfterRead },
    offers: {
      ttlMs: config.offers.ttlS * 1000,
      maxRatio: config.offers.maxRatio,
      perConversationPerDay: config.offers.perConversationPerDay,
    },
    wordScreen,
    bodyLimit: config.bodyLimit,
    // A WordPress site's own options, when the store holds them, else the environment's settings.
    presentation: {
      siteUrl: site?.siteUrl ?? config.siteUrl,
      listingUrlTemplate: site?.listingUrlTemplate ?? config.listingUrlTemplate,
      price: site?.price ?? config.price,
      formatTime: timeFormatter(site?.timeZone ?? config.siteTimezone),
      replyFormat: config.chatReplyFormat,
      ...(fileAddresses && { fileAddress: fileAddresses.sign }),
    },
    favouriteLists: store.favouriteLists,
    appConfig: new CachedAppConfig(
      {
        site: store,
        own: ownMarketplaceSettings(config),
        // On a site, its own settings name the app; PUSHER_URL only where it is.
        ...(config.pusher.app &&
          !store.sitePusherApp && { pusher: { appKey: config.pusher.app.key, appCluster: config.pusher.app.cluster } }),
        attachments: { maxCount: config.files.maxCount, maxBytes: config.files.maxBytes, types: config.files.types },
      },
      config.settingsRefreshMs,
    ),
    chatReads: { repos: store.repos, findUser },
    accounts: {
      accounts: store.accounts,
      passwords,
      revoked,
      tokenTtlS: Math.min(config.loginTokenTtlS, config.tokenMaxTtlS),
    },
    passwordStats: passwords.stats,
  };
}

/** GET config's settings where the store holds none (SQLite, PostgreSQL): Souk's, WordPress's defaults for the rest. */
function ownMarketplaceSettings(config: Config): MarketplaceSettings {
  const { price } = config;
  return {
    chatEnabled: true,
    currency: {
      id: config.currencyCode,
      symbol: price.currencySymbol,
      position: price.position,
      decimalSeparator: price.decimalSeparator,
      thousandsSeparator: price.thousandsSeparator,
    },
    dateFormat: WORDPRESS_DATE_FORMAT,
    timeFormat: WORDPRESS_TIME_FORMAT,
    timeZone: config.siteTimezone,
    startOfWeek: WORDPRESS_START_OF_WEEK,
    badges: Object.fromEntries(BADGES.map((name) => [name, defaultBadge(name)])) as MarketplaceSettings['badges'],
  };
}

/** The event streams, where the store keeps an event log (every store does). */
function eventStreams(config: Config, store: Store, deps: RouteDeps, onError: (err: unknown, what: string) => void): StreamHub | undefined {
  if (!store.eventLog || !store.eventSignals || !store.eventTickets) return undefined;
  return new StreamHub({
    log: store.eventLog,
    signals: store.eventSignals,
    tickets: store.eventTickets,
    present: (event) => loggedPayloadJson(event.payload, deps.presentation),
    heartbeatMs: config.events.heartbeatMs,
    bufferBytes: config.events.bufferBytes,
    streamsPerUser: config.events.streamsPerUser,
    retentionMs: config.events.retentionS * 1000,
    onError,
  });
}

/**
 * What is never stored (typing), where there are streams to tell: the typing gate publishes, the
 * streams of this instance write what any instance published (events/live.ts); Pusher may
 * subscribe as well.
 */
function liveEvents(store: Store, deps: RouteDeps, streams: StreamHub): LiveEvents {
  const live = new LiveEvents(store.liveChannel);
  const typing = new TypingGate({ repos: store.repos, findUser: deps.findUser, publish: (event) => live.publish(event) });
  live.subscribe(
    (event) => {
      if (event.type === 'blocks.changed') typing.forgetChecks();
      else streams.sendLive(event.to, event.type, JSON.stringify({ conversation_id: event.conversationId, user_id: event.userId }));
    },
    () => typing.forgetChecks(),
  );
  deps.typing = typing;
  deps.live = live;
  return live;
}

/** The webhook delivery loop, when WEBHOOK_URLS names receivers. */
function webhookSender(
  config: Config,
  store: Store,
  deps: RouteDeps,
  onError: (err: unknown, what: string) => void,
): WebhookSender | undefined {
  const { urls, secret } = config.webhooks;
  if (!store.webhooks || urls.length === 0 || secret === undefined) return undefined;
  return new WebhookSender({
    outbox: store.webhooks,
    secret,
    presentation: deps.presentation,
    retryForMs: config.webhooks.retryForS * 1000,
    retryBaseMs: config.webhooks.retryBaseMs,
    timeoutMs: config.webhooks.timeoutMs,
    retentionMs: config.webhooks.retentionS * 1000,
    onError,
  });
}

/**
 * Push notifications, when on and the store keeps devices: the route's deps and the sender. A
 * conversation is in view while its user streams here or read it lately here (events/push.ts).
 */
function pushNotifications(
  config: Config,
  store: Store,
  deps: RouteDeps,
  streams: StreamHub | undefined,
  onError: (err: unknown, what: string) => void,
): PushSender | undefined {
  if (!config.push.enabled || !store.pushDevices || !store.pushOutbox) return undefined;
  const views = new RecentViews();
  const account = config.push.fcmServiceAccount;
  deps.push = { devices: store.pushDevices, views, devicesPerUser: config.push.devicesPerUser, fcm: account !== undefined };
  return new PushSender({
    outbox: store.pushOutbox,
    devices: store.pushDevices,
    repos: store.repos,
    inView: (userId, conId, now) => (streams?.isStreaming(userId) ?? false) || views.recent(userId, conId, now),
    url: config.push.expoUrl,
    accessToken: config.push.accessToken,
    ...(account && { fcm: new FcmClient({ account, url: config.push.fcmUrl, timeoutMs: config.push.timeoutMs }) }),
    appScheme: config.push.appScheme,
    retryForMs: config.push.retryForS * 1000,
    retryBaseMs: config.push.retryBaseMs,
    timeoutMs: config.push.timeoutMs,
    receipts: new PushReceipts({
      devices: store.pushDevices,
      pushUrl: config.push.expoUrl,
      accessToken: config.push.accessToken,
      delayMs: config.push.receiptDelayS * 1000,
      timeoutMs: config.push.timeoutMs,
      onError,
    }),
    onError,
  });
}

/**
 * Once, when a Pusher app is first set with public channels: anyone holding the app's key (it is
 * in every page of the site and in GET config) can read every user's events. The way out is named.
 */
function warnOfPublicChannels(log: FastifyInstance['log']): void {
  log.warn(
    "Pusher events go to public channels (chat-user-{id}), as the plugin's web chat and 4.x apps listen: anyone holding the app's key, " +
      "which every page of the site and GET config show, can subscribe to any user's channel and read their new messages. " +
      'PUSHER_CHANNELS=private publishes to private-chat-user-{id}, authorized by POST pusher/auth (docs/pusher.md, "Private channels").',
  );
}

/**
 * Live events on the site's Pusher app (docs/pusher.md), where the store keeps a Pusher outbox:
 * the sender, and the routes' part (private channels' authorization, the metrics). Follows the
 * site's settings when PUSHER_URL is unset.
 */
async function pusherEvents(
  config: Config,
  store: Store,
  apps: LivePusherApp,
  deps: RouteDeps,
  onError: (err: unknown, what: string) => void,
  onRefused: (text: string) => void,
): Promise<PusherSender | undefined> {
  if (!store.pusherOutbox) return undefined;
  const site = store.sitePusherApp;
  if (!config.pusher.app && !site) return undefined;
  if (site) await apps.follow(() => site.call(store), config.settingsRefreshMs);
  if (config.pusher.channels === 'private') deps.pusher = apps;
  const sender = new PusherSender({
    outbox: store.pusherOutbox,
    apps,
    channels: config.pusher.channels,
    presentation: deps.presentation,
    retryForMs: config.pusher.retryForS * 1000,
    retryBaseMs: config.pusher.retryBaseMs,
    timeoutMs: config.pusher.timeoutMs,
    onRefused,
    onError,
  });
  deps.pusherStats = { stats: () => sender.stats, takeLatencies: () => sender.takeLatencies() };
  return sender;
}

/** Files uploaded with messages (docs/files.md): where they are stored, what is accepted. */
async function fileUploads(config: Config, store: Store, addresses: FileAddressSigning | undefined): Promise<FileDeps> {
  const { files } = config;
  return {
    storage: await openFileStorage({ dir: files.dir, url: files.url, s3: files.s3, s3PublicUrl: files.s3PublicUrl, access: files.access }),
    ...(addresses && { addresses }),
    references: store.fileReferences,
    limits: {
      maxCount: files.maxCount,
      maxBytes: files.maxBytes,
      audioMaxS: files.audioMaxS,
      types: files.types,
      image: {
        maxPx: files.imageMaxPx,
        thumbnailPx: files.thumbnailPx,
        maxPixels: files.imageMaxPixels,
        timeoutS: files.imageTimeoutS,
        concurrency: files.imageConcurrency,
        queue: files.imageQueue,
      },
    },
    // Inside the folder: the sweep removes what a crash leaves there.
    uploadsDir: join(files.dir, '.uploads'),
    admission: new UploadAdmission(files.uploadsInFlight, files.uploadTimeoutMs),
  };
}

/** The environment's abuse limits, retention and mail timing: the defaults of the stored ones (domain/tunables.ts). */
function tunableDefaults(config: Config): TunableValues {
  return {
    ...config.abuse,
    chatRetentionDays: config.chatRetentionDays ?? 0,
    mailDelayS: config.mail.delayS,
    mailMinIntervalS: config.mail.minIntervalS,
  };
}

/**
 * The retention of inactive conversations (domain/retention.ts): each pass takes the days in force,
 * CHAT_RETENTION_DAYS or the stored chat_retention_days; 0 keeps them for ever.
 */
function retentionJob(store: Store, tunables: () => TunableValues, log: () => FastifyInstance['log'] | undefined): RetentionJob {
  return new RetentionJob({
    uow: store,
    days: () => tunables().chatRetentionDays,
    onPass: ({ deleted }) => {
      if (deleted > 0) log()?.info({ deleted }, `chat retention: deleted ${deleted} inactive conversations`);
    },
    onError: (err) => log()?.error({ err }, 'chat retention failed'),
  });
}

/**
 * Who is online (events/presence.ts), wherever the store keeps it: the mail sender asks it, and
 * GET my/chat/presence answers from it (domain/chat/presence.ts).
 */
function presenceOf(
  config: Config,
  store: Store,
  deps: RouteDeps,
  streams: StreamHub | undefined,
  onError: (err: unknown, what: string) => void,
): Presence | undefined {
  if (!store.presence) return undefined;
  const presence = new Presence({
    repo: store.presence,
    windowMs: config.mail.onlineWindowS * 1000,
    streaming: (userId) => streams?.isStreaming(userId) ?? false,
    streamers: () => streams?.streamingUsers() ?? [],
    onError,
  });
  // Every authenticated request tells it its caller, at the auth step (a Map's update; the store's
  // write, at most once a window, goes with others' within a second and is not waited for). A stream counts from its opening.
  deps.auth.seen = (userId) => presence.seen(userId);
  if (store.mailPreferences) deps.presence = { presence, partners: store.presence, preferences: store.mailPreferences };
  return presence;
}

/**
 * E-mail when a message waits (docs/mail.md): the routes' deps (the users' choices, the unsubscribe
 * links' key) wherever the store keeps them; with SMTP_URL, the mail sender.
 */
async function mailNotifications(
  config: Config,
  store: Store,
  deps: RouteDeps,
  presence: Presence | undefined,
  tunables: () => TunableValues,
  onError: (err: unknown, what: string) => void,
): Promise<MailSender | undefined> {
  if (!store.mailOutbox || !store.mailPreferences || !presence) return undefined;
  const unsubscribeKey = await mailUnsubscribeKey(store.settings);
  deps.mail = { preferences: store.mailPreferences, unsubscribeKey };
  const { smtpUrl } = config.mail;
  if (smtpUrl === undefined) return undefined;
  const from = (await store.mailSender?.()) ?? parseMailbox(config.mail.from);
  if (!from) throw new ConfigError('SMTP_URL is set but MAIL_FROM is not: say who the mail is from ("Site name <address@example.com>")');
  // nodemailer is loaded only where mail is sent.
  const { smtpTransport } = await import('./events/mail-transport.js');
  const { presentation } = deps;
  const base = `${presentation.siteUrl.replace(/\/+$/, '')}${apiBase(config)}/mail/unsubscribe`;
  const sender = new MailSender({
    outbox: store.mailOutbox,
    repos: store.repos,
    preferences: store.mailPreferences,
    isOnline: (userId, now) => presence.isOnline(userId, now),
    transport: smtpTransport(smtpUrl, config.mail.timeoutMs),
    from,
    siteTitle: from.name || new URL(presentation.siteUrl).host,
    listingUrl: (listing) => listingUrl(listing, presentation),
    conversationUrl: (c) =>
      config.mail.conversationUrl
        .replaceAll('{site_url}', presentation.siteUrl.replace(/\/+$/, ''))
        .replaceAll('{con_id}', String(c.id))
        .replaceAll('{listing_id}', String(c.listingId)),
    unsubscribeUrl: (userId) => `${base}?user=${userId}&sig=${unsubscribeSignature(userId, unsubscribeKey)}`,
    // The values in force (mail_delay_s, mail_min_interval_s), read at each use: an owner may change them.
    get delayMs() {
      return tunables().mailDelayS * 1000;
    },
    get minIntervalMs() {
      return tunables().mailMinIntervalS * 1000;
    },
    retryBaseMs: config.mail.retryBaseMs,
    retryForMs: config.mail.retryForS * 1000,
    timeoutMs: config.mail.timeoutMs,
    onError,
  });
  deps.mailStats = () => sender.stats;
  return sender;
}

export interface SoukOptions {
  /** Log lines go here instead of stdout (tests read them). */
  logDestination?: LogDestination;
}

/**
 * Once per start: the database holds the API key and the JWT secret (D9), so a folder or file
 * that other users of the host can read is named, with its mode (never its content).
 */
function warnOfLoosePermissions(log: FastifyInstance['log'], store: Store): void {
  const loose = store.loosePermissions();
  if (loose.length === 0) return;
  const listed = loose.map((p) => `${p.path} (${p.mode})`).join(', ');
  log.warn(
    `the database holds the API key and the JWT secret but other users of this host can read ${listed}: chmod 700 the folder and 600 its files`,
  );
}

/**
 * Once per start, when the JWT secret is the Classified Listing plugin's public one (a WordPress
 * site's): what Souk refuses, and what it cannot protect. The secret itself is never written.
 */
function warnOfPublicSecret(log: FastifyInstance['log'], jwtSecret: string, acceptWordpressTokens: boolean): void {
  if (jwtSecret !== CLASSIFIED_LISTING_SECRET) return;
  log.warn(
    "the JWT secret is the Classified Listing plugin's public secret: anyone can sign a token the WordPress site's own routes accept as any user (the plugin's flaw, whatever Souk does). " +
      'Souk refuses such tokens: its own carry a mark made with token_mac_key' +
      (acceptWordpressTokens ? ", except the site's tokens, accepted while ACCEPT_WORDPRESS_TOKENS=true: anyone can forge those. " : '. ') +
      'See docs/running-beside-wordpress.md, "Tokens".',
  );
}

/** Builds a ready-to-listen Souk on the configured database (migrated, settings loaded). */
export async function createSouk(config: Config, options: SoukOptions = {}): Promise<Souk> {
  const { url, shown, createSqliteFolder } = databaseTarget(config);
  // Known once the store opened (presenceOf).
  let presence: Presence | undefined;
  // The abuse limits, retention and mail timing in force: the environment's until the settings are read (routeDeps).
  let tunables = (): TunableValues => tunableDefaults(config);
  let log: FastifyInstance['log'] | undefined;
  let warnedOfPublicChannels = false;
  const warnOfPublicOnce = () => {
    if (warnedOfPublicChannels || config.pusher.channels !== 'public' || !log) return;
    warnedOfPublicChannels = true;
    warnOfPublicChannels(log);
  };
  // Asked by the recorder of every change: a site's settings may turn Pusher on or off meanwhile.
  const pusherApps = new LivePusherApp({
    fixed: config.pusher.app,
    onSet: warnOfPublicOnce,
    onError: (err, what) => log?.error({ err }, what),
  });
  const store = await openMigratedStore(
    url,
    {
      ...config.db,
      createSqliteFolder,
      webhookUrls: config.webhooks.urls,
      push: config.push.enabled,
      eventPollMs: config.events.pollMs,
      // Mail on: a new message to a recipient not online here joins their pending mail (docs/mail.md).
      mail:
        config.mail.smtpUrl === undefined
          ? undefined
          : {
              // mail_delay_s in force, read at each message: an owner may change it.
              get delayMs() {
                return tunables().mailDelayS * 1000;
              },
              onlineHere: (userId, at) => presence?.isOnlineHere(userId, at) ?? false,
            },
      pusher: pusherApps,
    },
    shown,
  );
  try {
    const settings = await LiveSettings.load(store.settings, config);
    settings.watch(config.settingsRefreshMs);
    const revoked = new RevokedTokens(store.revocations, config.tokenMaxTtlS);
    await revoked.refresh();
    revoked.watch(config.settingsRefreshMs);
    const tokens = new TokenVerifier({
      cacheSize: config.tokenCacheSize,
      maxTtlS: config.tokenMaxTtlS,
      onUnusableSecret: (problem) =>
        log?.error(`jwt_secret cannot be used (${problem}): every token is refused until a usable secret is stored`),
      ...(config.acceptWordpressTokens ? { exempt: isWordpressToken } : {}),
    });
    // FILES_ACCESS=participants: the addresses of the files Souk serves are signed, and checked when served.
    const fileAddresses =
      config.files.access === 'participants'
        ? fileAddressSigning({ filesUrl: config.files.url, ttlS: config.files.urlTtlS, macKey: () => settings.current().tokenMacKey })
        : undefined;
    const deps = routeDeps(config, store, settings, tokens, revoked, await store.sitePresentation(), fileAddresses);
    if (deps.tunables) tunables = deps.tunables;
    const streams = eventStreams(config, store, deps, (err, what) => log?.error({ err }, what));
    if (streams) deps.events = { streams, tickets: store.eventTickets!, ticketTtlS: config.events.ticketTtlS };
    const live = streams && liveEvents(store, deps, streams);
    const push = pushNotifications(config, store, deps, streams, (err, what) => log?.error({ err }, what));
    deps.files = await fileUploads(config, store, fileAddresses);
    const { sweepIntervalS, sweepGraceS } = config.files;
    // With a bucket, the uploads' temporary files wait in FILES_DIR on this machine: its leftovers are swept too.
    const swept = [deps.files.storage, ...(config.files.s3 ? [localFolder(config.files)] : [])];
    const stops =
      sweepIntervalS > 0
        ? swept.map((storage) =>
            sweepEvery(storage, deps.files!.references, sweepIntervalS * 1000, sweepGraceS * 1000, (err) =>
              log?.error({ err }, 'file sweep failed'),
            ),
          )
        : [];
    const stopSweeping = () => stops.forEach((stop) => stop());
    presence = presenceOf(config, store, deps, streams, (err, what) => log?.error({ err }, what));
    const mail = await mailNotifications(config, store, deps, presence, tunables, (err, what) => log?.error({ err }, what));
    const serverKeys = new ServerKeys(store.serverKeys, (err) => log?.error({ err }, 'server keys: read failed'));
    await serverKeys.refresh();
    serverKeys.watch(config.settingsRefreshMs);
    deps.server = serverApi(config, store, settings, deps, serverKeys);
    if (config.consoleEnabled) deps.console = await staffConsole(config, store, deps.server!.operator, deps.accounts.passwords);
    const pusher = await pusherEvents(
      config,
      store,
      pusherApps,
      deps,
      (err, what) => log?.error({ err }, what),
      (text) => log?.warn(text),
    );
    const app = await buildApp({ config, deps, logDestination: options.logDestination });
    log = app.log;
    if (config.mail.smtpUrl === undefined) app.log.info('SMTP_URL is unset: no mail is sent when a message waits (docs/mail.md)');
    streams?.start();
    const webhooks = webhookSender(config, store, deps, (err, what) => log?.error({ err }, what));
    webhooks?.start();
    push?.start();
    pusher?.start();
    if (pusherApps.on()) warnOfPublicOnce();
    const retention = retentionJob(store, tunables, () => log);
    retention.start();
    const stopAuditPruning = auditPruning(config, store, () => log);
    presence?.start();
    mail?.start();
    warnOfLoosePermissions(app.log, store);
    warnOfPublicSecret(app.log, settings.current().jwtSecret, config.acceptWordpressTokens);
    return {
      app,
      store,
      settings,
      tokens,
      revoked,
      streams,
      live,
      push,
      mail,
      serverKeys,
      pusher,
      pusherApps,
      async close() {
        settings.stop();
        revoked.stop();
        serverKeys.stop();
        stopSweeping();
        // Open streams would hold the server open: they end, and their clients reconnect elsewhere.
        streams?.close();
        live?.close();
        await app.close();
        await webhooks?.stop();
        await push?.stop();
        pusherApps.stop();
        await pusher?.stop();
        await retention.stop();
        await stopAuditPruning();
        await presence?.stop();
        await mail?.stop();
        if (deps.files) closeFileStorage(deps.files.storage);
        await store.close();
      },
    };
  } catch (err) {
    await store.close().catch(() => {});
    throw err;
  }
}

export async function serve(config: Config): Promise<Souk> {
  const souk = await createSouk(config);
  // Before the ready line: whoever reads it may send SIGTERM at once, and must get a clean stop.
  shutdownOnSignals(souk, config.shutdownTimeoutMs);
  const address = await souk.app.listen({ port: config.port, host: config.host });
  console.log(`Souk is serving the interface at ${address}${apiBase(config)}`);
  return souk;
}
