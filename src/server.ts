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
import { LiveSettings } from './auth/settings.js';
import { liveWordScreen } from './domain/safety/words.js';
import { openMigratedStore, type Store } from './store/index.js';
import type { SitePresentation } from './domain/ports.js';
import { cachedLoginLookup, cachedUserLookup } from './auth/user-cache.js';
import { fileAddressSigning, type FileAddressSigning } from './auth/file-addresses.js';
import { shutdownOnSignals } from './shutdown.js';
import { loggedPayloadJson } from './events/payloads.js';
import { StreamHub } from './events/stream-hub.js';
import { WebhookSender } from './events/webhooks.js';
import { PushReceipts } from './events/push-receipts.js';
import { PushSender, RecentViews } from './events/push.js';
import { LivePusherApp, PusherSender } from './events/pusher.js';
import { closeFileStorage, openFileStorage } from './store/files/open.js';
import { sweepEvery } from './domain/files/sweep.js';
import type { FileDeps } from './http/uploads.js';
import { join } from 'node:path';
import { RetentionJob } from './domain/retention.js';

export interface Souk {
  app: FastifyInstance;
  store: Store;
  settings: LiveSettings;
  tokens: TokenVerifier;
  revoked: RevokedTokens;
  /** The event streams in this process; absent where the store keeps no event log. */
  streams: StreamHub | undefined;
  /** The push notifications' sender; absent where the store keeps no push outbox or PUSH_NOTIFICATIONS is false. */
  push: PushSender | undefined;
  /** The mail sender; absent without SMTP_URL or where the store keeps no mail outbox. */
  mail: MailSender | undefined;
  /** The Pusher sender; absent where no Pusher app can be set (no PUSHER_URL, not a WordPress site). */
  pusher: PusherSender | undefined;
  close(): Promise<void>;
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
  const findUser = cachedUserLookup((id) => store.repos.users.findById(id), settings.catalogVersion);
  const passwords = passwordHasher({
    concurrency: config.passwordConcurrency || defaultPasswordConcurrency(),
    queue: config.signInQueue,
    nice: config.passwordNice,
  });
  return {
    uow: store,
    health: store,
    auth: {
      settings: settings.current,
      verifier: tokens,
      findUser,
      isRevoked: revoked.has,
      // ACCEPT_WORDPRESS_TOKENS: the site's tokens name their user by login (docs/running-beside-wordpress.md, "Tokens").
      ...(config.acceptWordpressTokens
        ? { findUserByLogin: cachedLoginLookup((login) => store.accounts.findForSignIn(login), findUser, settings.catalogVersion) }
        : {}),
    },
    findUser,
    limits: { textMaxLength: config.textMaxLength, maxFiles: config.maxFiles },
    wordScreen: liveWordScreen(settings.stored),
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
  deps.push = { devices: store.pushDevices, views, devicesPerUser: config.push.devicesPerUser };
  return new PushSender({
    outbox: store.pushOutbox,
    devices: store.pushDevices,
    repos: store.repos,
    inView: (userId, conId, now) => (streams?.isStreaming(userId) ?? false) || views.recent(userId, conId, now),
    url: config.push.expoUrl,
    accessToken: config.push.accessToken,
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
    storage: await openFileStorage({ dir: files.dir, url: files.url, s3: files.s3, s3PublicUrl: files.s3PublicUrl }),
    ...(addresses && { addresses }),
    references: store.fileReferences,
    limits: {
      maxCount: files.maxCount,
      maxBytes: files.maxBytes,
      types: files.types,
      image: {
        maxPx: files.imageMaxPx,
        thumbnailPx: files.thumbnailPx,
        maxPixels: files.imageMaxPixels,
        timeoutS: files.imageTimeoutS,
        concurrency: files.imageConcurrency,
      },
    },
    // Inside the folder: the sweep removes what a crash leaves there.
    uploadsDir: join(files.dir, '.uploads'),
  };
}

/** The retention of inactive conversations, when CHAT_RETENTION_DAYS is set (domain/retention.ts). */
function retentionJob(config: Config, store: Store, log: () => FastifyInstance['log'] | undefined): RetentionJob | undefined {
  if (config.chatRetentionDays === undefined) return undefined;
  return new RetentionJob({
    uow: store,
    days: config.chatRetentionDays,
    onPass: ({ deleted }) => {
      if (deleted > 0) log()?.info({ deleted }, `chat retention: deleted ${deleted} inactive conversations`);
    },
    onError: (err) => log()?.error({ err }, 'chat retention failed'),
  });
}

/**
 * E-mail when a message waits (docs/mail.md): the routes' deps (the users' choices, the unsubscribe
 * links' key) wherever the store keeps them; with SMTP_URL, who is online and the mail sender.
 */
async function mailNotifications(
  config: Config,
  store: Store,
  deps: RouteDeps,
  streams: StreamHub | undefined,
  onError: (err: unknown, what: string) => void,
): Promise<{ sender: MailSender; presence: Presence } | undefined> {
  if (!store.mailOutbox || !store.mailPreferences || !store.presence) return undefined;
  const unsubscribeKey = await mailUnsubscribeKey(store.settings);
  deps.mail = { preferences: store.mailPreferences, unsubscribeKey };
  const { smtpUrl } = config.mail;
  if (smtpUrl === undefined) return undefined;
  const from = (await store.mailSender?.()) ?? parseMailbox(config.mail.from);
  if (!from) throw new ConfigError('SMTP_URL is set but MAIL_FROM is not: say who the mail is from ("Site name <address@example.com>")');
  // nodemailer is loaded only where mail is sent.
  const { smtpTransport } = await import('./events/mail-transport.js');
  const presence = new Presence({
    repo: store.presence,
    windowMs: config.mail.onlineWindowS * 1000,
    streaming: (userId) => streams?.isStreaming(userId) ?? false,
    streamers: () => streams?.streamingUsers() ?? [],
    onError,
  });
  // Every authenticated request tells it its caller, at the auth step (a Map's update; the store's
  // write, at most once a window, is not waited for). A stream counts from its opening.
  deps.auth.seen = (userId) => presence.seen(userId);
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
    delayMs: config.mail.delayS * 1000,
    minIntervalMs: config.mail.minIntervalS * 1000,
    retryBaseMs: config.mail.retryBaseMs,
    retryForMs: config.mail.retryForS * 1000,
    timeoutMs: config.mail.timeoutMs,
    onError,
  });
  deps.mailStats = () => sender.stats;
  return { sender, presence };
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
  // Known once the mail part is set up, after the store opened (mailNotifications).
  let presence: Presence | undefined;
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
    timeoutMs: config.pusher.timeoutMs,
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
          : { delayMs: config.mail.delayS * 1000, onlineHere: (userId, at) => presence?.isOnlineHere(userId, at) ?? false },
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
    const streams = eventStreams(config, store, deps, (err, what) => log?.error({ err }, what));
    if (streams) deps.events = { streams, tickets: store.eventTickets!, ticketTtlS: config.events.ticketTtlS };
    const push = pushNotifications(config, store, deps, streams, (err, what) => log?.error({ err }, what));
    deps.files = await fileUploads(config, store, fileAddresses);
    const { sweepIntervalS, sweepGraceS } = config.files;
    const stopSweeping =
      sweepIntervalS > 0
        ? sweepEvery(deps.files.storage, deps.files.references, sweepIntervalS * 1000, sweepGraceS * 1000, (err) =>
            log?.error({ err }, 'file sweep failed'),
          )
        : undefined;
    const mail = await mailNotifications(config, store, deps, streams, (err, what) => log?.error({ err }, what));
    presence = mail?.presence;
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
    const retention = retentionJob(config, store, () => log);
    retention?.start();
    mail?.presence.start();
    mail?.sender.start();
    warnOfLoosePermissions(app.log, store);
    warnOfPublicSecret(app.log, settings.current().jwtSecret, config.acceptWordpressTokens);
    return {
      app,
      store,
      settings,
      tokens,
      revoked,
      streams,
      push,
      mail: mail?.sender,
      pusher,
      async close() {
        settings.stop();
        revoked.stop();
        stopSweeping?.();
        // Open streams would hold the server open: they end, and their clients reconnect elsewhere.
        streams?.close();
        await app.close();
        await webhooks?.stop();
        await push?.stop();
        pusherApps.stop();
        await pusher?.stop();
        await retention?.stop();
        mail?.presence.stop();
        await mail?.sender.stop();
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
