/**
 * GET config's part of a WordPress site's options (domain/config.ts), read anew at each call: the
 * chat switch and Pusher app of `rtcl_chat_settings`, the currency, WordPress's date and time
 * formats, time zone and first day of the week, the badges' labels, places and colours. Read as
 * the plugin reads them (Functions::get_option_item): a checkbox is on when it holds `yes`, a
 * text empty or absent takes the plugin's default.
 */
import { sql } from 'kysely';
import {
  BADGES,
  defaultBadge,
  WORDPRESS_DATE_FORMAT,
  WORDPRESS_START_OF_WEEK,
  WORDPRESS_TIME_FORMAT,
  type BadgeName,
  type MarketplaceSettings,
} from '../../domain/config.js';
import type { SiteConfigReader } from '../../domain/ports.js';
import { rows, T, type Db, type MysqlContext } from './context.js';
import { phpObject, readSiteOptions, siteTimeZone } from './site.js';

const OPTIONS = [
  'rtcl_chat_settings',
  'rtcl_general_settings',
  'rtcl_general_currency_settings',
  'rtcl_moderation_settings',
  'rtcl_style_settings',
  'date_format',
  'time_format',
  'start_of_week',
  'timezone_string',
  'gmt_offset',
] as const;

/** The settings' keys of each badge: its label (rtcl_moderation_settings), its colours (rtcl_style_settings). */
const BADGE_KEYS: Record<BadgeName, { label: string; colour: string }> = {
  new: { label: 'new_listing_label', colour: 'new' },
  popular: { label: 'popular_listing_label', colour: 'popular' },
  featured: { label: 'listing_featured_label', colour: 'feature' },
  top: { label: 'listing_top_label', colour: 'top' },
  bump_up: { label: 'listing_bump_up_label', colour: 'bump_up' },
};

/** A non-empty string or number as text, else undefined (PHP's `! empty()`, near enough). */
function filled(value: unknown): string | undefined {
  if (typeof value === 'number') return String(value);
  return typeof value === 'string' && value !== '' && value !== '0' ? value : undefined;
}

/** A multi-checkbox setting: the values ticked (a PHP array, read as an array or an object). */
function ticked(value: unknown): string[] {
  if (!value || typeof value !== 'object') return [];
  return Object.values(value as Record<string, unknown>).filter((v): v is string => typeof v === 'string');
}

/** WordPress's wp_timezone(): the zone's name as stored, else gmt_offset as `+HH:MM` (`+00:00` for none). */
function wpTimeZone(timezoneString: string | undefined, gmtOffset: string | undefined): string {
  const zone = siteTimeZone(timezoneString, gmtOffset);
  return zone === 'UTC' && !timezoneString ? '+00:00' : zone;
}

export function readSiteConfig(options: Record<string, string>): MarketplaceSettings {
  const chat = phpObject(options.rtcl_chat_settings);
  const currency = phpObject(options.rtcl_general_currency_settings);
  const moderation = phpObject(options.rtcl_moderation_settings);
  const style = phpObject(options.rtcl_style_settings);
  const { price } = readSiteOptions(options).presentation;
  const onCards = ticked(moderation.display_options);
  const onPage = ticked(moderation.display_options_detail);
  const badges = Object.fromEntries(
    BADGES.map((name) => {
      const keys = BADGE_KEYS[name];
      return [
        name,
        {
          label: filled(moderation[keys.label]) ?? defaultBadge(name).label,
          listing: onCards.includes(name),
          single: onPage.includes(name),
          background: filled(style[keys.colour]) ?? '',
          text: filled(style[`${keys.colour}_text`]) ?? '',
        },
      ];
    }),
  ) as MarketplaceSettings['badges'];
  const startOfWeek = Number(options.start_of_week ?? WORDPRESS_START_OF_WEEK);
  return {
    chatEnabled: chat.enable === 'yes',
    ...(chat.pusher_enable === 'yes'
      ? { pusher: { appKey: filled(chat.pusher_app_key) ?? null, appCluster: filled(chat.pusher_app_cluster) ?? null } }
      : {}),
    currency: {
      id: filled(currency.currency) ?? 'USD',
      symbol: price.currencySymbol,
      position: price.position,
      decimalSeparator: price.decimalSeparator,
      thousandsSeparator: price.thousandsSeparator,
    },
    dateFormat: options.date_format || WORDPRESS_DATE_FORMAT,
    timeFormat: options.time_format || WORDPRESS_TIME_FORMAT,
    timeZone: wpTimeZone(options.timezone_string, options.gmt_offset),
    startOfWeek: Number.isInteger(startOfWeek) && startOfWeek >= 0 && startOfWeek <= 6 ? startOfWeek : WORDPRESS_START_OF_WEEK,
    badges,
  };
}

export function mysqlSiteConfig(db: Db, ctx: MysqlContext): SiteConfigReader {
  return {
    async siteConfig() {
      const found = await rows(
        db,
        sql<{ option_name: string; option_value: string }>`select option_name, option_value from ${T(ctx.t.options)}
          where option_name in (${sql.join([...OPTIONS])})`,
      );
      return readSiteConfig(Object.fromEntries(found.map((r) => [r.option_name, r.option_value])));
    },
  };
}
