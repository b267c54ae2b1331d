/**
 * The reply of GET config, in the plugin's keys and order (V1_CommonApi::config_callback, with the
 * chat part Classified Listing Pro adds), as far as Souk knows them.
 */
import { BADGES, type AppConfig, type AttachmentLimits } from '../domain/config.js';

/**
 * PHP date() letters to Moment.js tokens, as the plugin converts them (Utility::dateFormatPHPToMoment):
 * letters with no equivalent become '', other characters stay, `\x` becomes `[x]`.
 */
const PHP_TO_MOMENT: Record<string, string> = {
  A: 'A',
  a: 'a',
  B: '',
  c: 'YYYY-MM-DD[T]HH:mm:ssZ',
  D: 'ddd',
  d: 'DD',
  e: 'zz',
  F: 'MMMM',
  G: 'H',
  g: 'h',
  H: 'HH',
  h: 'hh',
  I: '',
  i: 'mm',
  j: 'D',
  L: '',
  l: 'dddd',
  M: 'MMM',
  m: 'MM',
  N: 'E',
  n: 'M',
  O: 'ZZ',
  o: 'YYYY',
  P: 'Z',
  r: 'ddd, DD MMM YYYY HH:mm:ss ZZ',
  S: 'o',
  s: 'ss',
  T: 'z',
  t: '',
  U: 'X',
  u: 'SSSSSS',
  v: 'SSS',
  W: 'W',
  w: 'e',
  Y: 'YYYY',
  y: 'YY',
  Z: '',
  z: 'DDD',
};

export function momentFormat(php: string): string {
  let out = '';
  for (let i = 0; i < php.length; i++) {
    const c = php[i] as string;
    const next = php[i + 1];
    if (c === '\\' && next !== undefined && next in PHP_TO_MOMENT) {
      out += `[${next}]`;
      i++;
    } else {
      out += PHP_TO_MOMENT[c] ?? c;
    }
  }
  return out;
}

/** A PHP DateTimeZone as json_encode writes it: type 1 for an offset, 3 for a named zone. */
function phpTimeZone(zone: string) {
  return { timezone_type: /^[+-]\d{2}:\d{2}$/.test(zone) ? 1 : 3, timezone: zone };
}

/**
 * The limits in the plugin's units: MB (1048576 bytes; to the hundredth below, so that an app never
 * sends a file Souk refuses), images as `image/` subtypes, the other types as `application/`
 * subtypes (another family's type whole).
 */
function attachmentLimits(limits: AttachmentLimits) {
  const images = limits.types.filter((t) => t.startsWith('image/'));
  return {
    max_limit: limits.maxCount,
    max_size_mb: Math.floor((limits.maxBytes / 1_048_576) * 100) / 100,
    image_types: images.map((t) => t.slice('image/'.length)),
    file_types: limits.types
      .filter((t) => !images.includes(t))
      .map((t) => (t.startsWith('application/') ? t.slice('application/'.length) : t)),
  };
}

export function appConfigReply(config: AppConfig) {
  const { currency, attachments } = config;
  const tz = phpTimeZone(config.timeZone);
  return {
    currency: {
      id: currency.id,
      symbol: currency.symbol,
      position: currency.position,
      separator: { decimal: currency.decimalSeparator, thousand: currency.thousandsSeparator },
    },
    datetime_fmt: { time: momentFormat(config.timeFormat), date: momentFormat(config.dateFormat) },
    timezone: tz,
    tz,
    date_format: config.dateFormat,
    time_format: config.timeFormat,
    start_of_week: config.startOfWeek,
    badges: Object.fromEntries(
      BADGES.map((name) => {
        const b = config.badges[name];
        return [name, { label: b.label, listing: b.listing, single: b.single, color: { bg: b.background, text: b.text } }];
      }),
    ),
    chat: {
      enable: config.chatEnabled,
      attachment: attachmentLimits(attachments),
      refresh_interval: config.refreshIntervalMs,
      ...(config.pusher ? { pusher: { app_key: config.pusher.appKey, app_cluster: config.pusher.appCluster } } : {}),
    },
  };
}

/** The reply as JSON text, made once per configuration read (the route keeps it while the read is current). */
export const appConfigJson = (config: AppConfig): string => JSON.stringify(appConfigReply(config));
