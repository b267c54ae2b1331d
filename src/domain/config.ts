/**
 * GET config: the settings the apps read at start (the plugin's V1_CommonApi::config_callback),
 * the part Souk knows. On a WordPress site they are the site's own options (read through
 * SiteConfigReader, domain/ports.ts), elsewhere Souk's settings; the chat's attachment limits are always the ones
 * Souk enforces on uploads.
 */

/** How often the plugin's apps poll the chat (its `rtcl_chat_refresh_interval` filter's default), in ms. */
export const CHAT_REFRESH_INTERVAL_MS = 20_000;

export type CurrencyPosition = 'left' | 'right' | 'left_space' | 'right_space';

/** The five badges the plugin knows, in its order. */
export const BADGES = ['new', 'popular', 'featured', 'top', 'bump_up'] as const;
export type BadgeName = (typeof BADGES)[number];

export interface Badge {
  label: string;
  /** Shown on listing cards, and on a listing's own page. */
  listing: boolean;
  single: boolean;
  /** CSS colours, '' when the site sets none. */
  background: string;
  text: string;
}

/** The plugin's labels; a badge the settings do not name is shown nowhere, without colours (the plugin's defaults). */
const BADGE_LABELS: Record<BadgeName, string> = { new: 'New', popular: 'Popular', featured: 'Featured', top: 'Top', bump_up: 'Bump Up' };

export function defaultBadge(name: BadgeName): Badge {
  return { label: BADGE_LABELS[name], listing: false, single: false, background: '', text: '' };
}

/** WordPress's own defaults for a site that sets nothing: `F j, Y`, `g:i a`, weeks from Monday. */
export const WORDPRESS_DATE_FORMAT = 'F j, Y';
export const WORDPRESS_TIME_FORMAT = 'g:i a';
export const WORDPRESS_START_OF_WEEK = 1;

/** The limits an upload is held to (FILES_MAX_COUNT, FILES_MAX_BYTES, FILES_TYPES). */
export interface AttachmentLimits {
  maxCount: number;
  maxBytes: number;
  /** MIME types (`image/jpeg`, `application/pdf`). */
  types: readonly string[];
}

/** What a marketplace's settings say, whoever holds them. */
export interface MarketplaceSettings {
  chatEnabled: boolean;
  /** The site's Pusher app, when the site turned Pusher on; never elsewhere. */
  pusher?: { appKey: string | null; appCluster: string | null };
  currency: {
    /** ISO 4217 code. */
    id: string;
    /** As the plugin writes it: HTML entities (`&#36;`). */
    symbol: string;
    position: CurrencyPosition;
    decimalSeparator: string;
    thousandsSeparator: string;
  };
  /** PHP date() formats, as WordPress stores them. */
  dateFormat: string;
  timeFormat: string;
  /** An IANA zone, or a fixed offset `+05:30` (WordPress's wp_timezone()). */
  timeZone: string;
  /** 0 (Sunday) to 6. */
  startOfWeek: number;
  badges: Record<BadgeName, Badge>;
}

export interface AppConfig extends MarketplaceSettings {
  attachments: AttachmentLimits;
  refreshIntervalMs: number;
}

export interface AppConfigDeps {
  /** The WordPress site's settings; absent, or answering undefined, where Souk's own apply. */
  site?: { siteConfig(): Promise<MarketplaceSettings | undefined> };
  /** Souk's settings (the environment's), for a store that holds none. */
  own: MarketplaceSettings;
  /** The Pusher app PUSHER_URL names, which Souk publishes to: it wins over the site's on every database. */
  pusher?: MarketplaceSettings['pusher'];
  attachments: AttachmentLimits;
}

/** The configuration as the settings say now. */
export async function appConfig(deps: AppConfigDeps): Promise<AppConfig> {
  const settings = (await deps.site?.siteConfig()) ?? deps.own;
  return {
    ...settings,
    ...(deps.pusher && { pusher: deps.pusher }),
    attachments: deps.attachments,
    refreshIntervalMs: CHAT_REFRESH_INTERVAL_MS,
  };
}

/**
 * appConfig, read at most once per `maxAgeMs`: the apps ask at every start, the settings change
 * rarely. Concurrent callers share one read; a failed read is not kept. A change of the settings
 * shows within maxAgeMs (plus the read's own time).
 */
export class CachedAppConfig {
  private last: { config: AppConfig; at: number } | undefined;
  private pending: Promise<AppConfig> | undefined;

  constructor(
    private readonly deps: AppConfigDeps,
    private readonly maxAgeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  get(): Promise<AppConfig> {
    if (this.last && this.now() - this.last.at < this.maxAgeMs) return Promise.resolve(this.last.config);
    this.pending ??= this.read();
    return this.pending;
  }

  private async read(): Promise<AppConfig> {
    const at = this.now();
    try {
      const config = await appConfig(this.deps);
      this.last = { config, at };
      return config;
    } finally {
      this.pending = undefined;
    }
  }
}
