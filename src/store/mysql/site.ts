/**
 * What a WordPress site's options tell Souk, read once when the store starts: its addresses, its
 * time zone, the plugin's currency and permalink settings and the image sizes. The presentation
 * part reaches the presenters through Store.sitePresentation() (server.ts puts it in place of the
 * environment's SITE_URL, LISTING_URL_TEMPLATE, CURRENCY_*, PRICE_* and SITE_TIMEZONE); the rest
 * (upload address, image sizes, time zone) is the store's own, to build images and to write times
 * as the plugin does.
 */
import { unserialize } from 'php-serialize';
import type { SitePresentation } from '../../domain/ports.js';

/** A box an image size fits in: WordPress's thumbnail and medium, the plugin's gallery size. */
export interface SizeBox {
  width: number;
  height: number;
}

export interface SiteOptions {
  presentation: SitePresentation;
  /** `{siteurl}/wp-content/uploads`, or the site's upload_url_path. */
  uploadsUrl: string;
  sizes: { thumbnail: SizeBox; medium: SizeBox; gallery: SizeBox };
  /** The `new` badge's age limit in days (rtcl_general_listing_label_settings). */
  newListingDays: number;
  /** Views from which a listing is `popular`. */
  popularViews: number;
  /** The site's local time: epoch ms to `YYYY-MM-DD HH:MM:SS` and back, as the plugin writes its chat times. */
  clock: SiteClock;
}

/** The option rows Souk reads, by name. */
export const OPTION_NAMES = [
  'siteurl',
  'home',
  'timezone_string',
  'gmt_offset',
  'permalink_structure',
  'upload_url_path',
  'thumbnail_size_w',
  'thumbnail_size_h',
  'medium_size_w',
  'medium_size_h',
  'rtcl_general_settings',
  'rtcl_general_currency_settings',
  'rtcl_general_listing_label_settings',
  'rtcl_advanced_settings',
  'rtcl_misc_media_settings',
] as const;

/** A PHP-serialised option as an object; anything else (absent, a scalar, broken) as {}. */
export function phpObject(raw: string | undefined): Record<string, unknown> {
  if (!raw || !/^a:\d+:\{/.test(raw)) return {};
  try {
    const value: unknown = unserialize(raw, {}, { strict: false });
    if (Array.isArray(value)) return { ...value };
    return value && typeof value === 'object' ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

const str = (value: unknown, fallback: string) => (typeof value === 'string' || typeof value === 'number' ? String(value) : fallback);
const positive = (value: unknown, fallback: number) => {
  const n = Number(value);
  return Number.isFinite(n) && n > 0 ? n : fallback;
};

/**
 * The plugin's symbols for the common currencies (its Options::get_currency_symbols writes HTML
 * entities). A currency not listed shows its code.
 */
const CURRENCY_SYMBOLS: Record<string, string> = {
  USD: '&#36;',
  AUD: '&#36;',
  CAD: '&#36;',
  NZD: '&#36;',
  SGD: '&#36;',
  HKD: '&#36;',
  MXN: '&#36;',
  EUR: '&euro;',
  GBP: '&pound;',
  JPY: '&yen;',
  CNY: '&yen;',
  INR: '&#8377;',
  BDT: '&#2547;&nbsp;',
  PKR: '&#8360;',
  RUB: '&#8381;',
  TRY: '&#8378;',
  KRW: '&#8361;',
  NGN: '&#8358;',
  BRL: '&#82;&#36;',
  CHF: '&#67;&#72;&#70;',
  ZAR: '&#82;',
  AED: '&#x62f;.&#x625;',
  SAR: '&#x631;.&#x633;',
};

const POSITIONS = ['left', 'right', 'left_space', 'right_space'] as const;
type Position = (typeof POSITIONS)[number];

/** The site's zone: timezone_string, else gmt_offset as a fixed offset (`+05:30`), as WordPress's wp_timezone(). */
export function siteTimeZone(timezoneString: string | undefined, gmtOffset: string | undefined): string {
  if (timezoneString) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: timezoneString });
      return timezoneString;
    } catch {
      // An unknown name: WordPress falls back to the offset too.
    }
  }
  const hours = Number(gmtOffset ?? 0) || 0;
  if (hours === 0) return 'UTC';
  const minutes = Math.round(Math.abs(hours) * 60);
  return `${hours < 0 ? '-' : '+'}${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

export function readSiteOptions(options: Record<string, string>): SiteOptions {
  const siteurl = (options.siteurl ?? '').replace(/\/+$/, '');
  const home = (options.home || siteurl).replace(/\/+$/, '');
  const general = phpObject(options.rtcl_general_settings);
  const currency = phpObject(options.rtcl_general_currency_settings);
  const advanced = phpObject(options.rtcl_advanced_settings);
  const labels = phpObject(options.rtcl_general_listing_label_settings);
  const media = phpObject(options.rtcl_misc_media_settings);
  const gallery = (media.image_size_gallery ?? {}) as Record<string, unknown>;
  // The plugin (5.0.3, Functions::get_price_format) reads the position from rtcl_general_settings,
  // not from the currency settings page that stores it: the recorded replies show `left` on a site
  // whose currency settings say `right`. Souk shows what the site shows.
  const position = str(general.currency_position, 'left') as Position;
  const base = str(advanced.permalink, 'rtcl_listing') || 'rtcl_listing';
  const timeZone = siteTimeZone(options.timezone_string, options.gmt_offset);
  const listingUrlTemplate = options.permalink_structure ? `{site_url}/${base}/{slug}/` : `{site_url}/?${base}={slug}`;
  return {
    presentation: {
      siteUrl: home,
      listingUrlTemplate,
      timeZone,
      price: {
        currencySymbol: CURRENCY_SYMBOLS[str(currency.currency, 'USD')] ?? str(currency.currency, 'USD'),
        position: POSITIONS.includes(position) ? position : 'left',
        decimals: 2,
        thousandsSeparator: str(currency.currency_thousands_separator, ','),
        decimalSeparator: str(currency.currency_decimal_separator, '.') || '.',
        trimZeros: true,
      },
    },
    uploadsUrl: (options.upload_url_path || `${siteurl}/wp-content/uploads`).replace(/\/+$/, ''),
    sizes: {
      thumbnail: { width: positive(options.thumbnail_size_w, 150), height: positive(options.thumbnail_size_h, 150) },
      medium: { width: positive(options.medium_size_w, 300), height: positive(options.medium_size_h, 300) },
      gallery: { width: positive(gallery.width, 924), height: positive(gallery.height, 462) },
    },
    newListingDays: positive(labels.new_listing_threshold, 3),
    popularViews: positive(labels.popular_listing_threshold, 1000),
    clock: siteClock(timeZone),
  };
}

export interface SiteClock {
  /** Epoch ms as the site's local `YYYY-MM-DD HH:MM:SS` (what current_time('mysql') writes). */
  local(epochMs: number): string;
  /** A local `YYYY-MM-DD HH:MM:SS` back to epoch ms (the earlier of two in a repeated hour). */
  epoch(local: string): number;
}

const utcText = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

export function siteClock(timeZone: string): SiteClock {
  const fixed = /^([+-])(\d{2}):(\d{2})$/.exec(timeZone);
  if (timeZone === 'UTC' || fixed) {
    const offsetMs = fixed ? (fixed[1] === '-' ? -1 : 1) * (Number(fixed[2]) * 60 + Number(fixed[3])) * 60_000 : 0;
    return {
      local: (ms) => utcText(Math.floor(ms / 1000) * 1000 + offsetMs),
      epoch: (local) => Date.parse(`${local.replace(' ', 'T')}Z`) - offsetMs,
    };
  }
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone,
    hourCycle: 'h23',
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    second: '2-digit',
  });
  const local = (ms: number) => {
    const p: Record<string, string> = {};
    for (const part of format.formatToParts(new Date(Math.floor(ms / 1000) * 1000))) p[part.type] = part.value;
    return `${p.year}-${p.month}-${p.day} ${p.hour}:${p.minute}:${p.second}`;
  };
  return {
    local,
    epoch(text) {
      const asUtc = Date.parse(`${text.replace(' ', 'T')}Z`);
      // The zone's offset at that time, found from the wall time itself (twice, across a change).
      let guess = asUtc - (Date.parse(`${local(asUtc).replace(' ', 'T')}Z`) - asUtc);
      guess = asUtc - (Date.parse(`${local(guess).replace(' ', 'T')}Z`) - guess);
      return guess;
    },
  };
}
