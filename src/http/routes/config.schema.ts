/** Schema of GET config (docs/app-config.md). */
import { Type } from '@sinclair/typebox';
import { BADGES, defaultBadge, type AppConfig } from '../../domain/config.js';
import { PLUGIN_FILE_TYPES } from '../../domain/files/types.js';
import { appConfigReply } from '../../present/config.js';
import { RequestHeaders, success } from './common.schema.js';
import { appRouteErrors } from './errors.schema.js';

const Str = Type.String();
const Bool = Type.Boolean();

const Badge = Type.Object({
  label: Str,
  listing: Type.Boolean({ description: 'Shown on listing cards.' }),
  single: Type.Boolean({ description: "Shown on a listing's own page." }),
  color: Type.Object({ bg: Str, text: Str }, { description: "CSS colours; '' for the theme's." }),
});

const TimeZone = Type.Object(
  {
    timezone_type: Type.Integer({ description: '1: a fixed offset, 3: a named zone (PHP DateTimeZone).' }),
    timezone: Type.String({ examples: ['Europe/Paris', '+05:30'] }),
  },
  { description: "The site's time zone, as PHP's json_encode writes a DateTimeZone." },
);

/** The example: the presenter's reply for Souk's default settings (the plugin's limits). */
const EXAMPLE_CONFIG: AppConfig = {
  chatEnabled: true,
  currency: { id: 'USD', symbol: '&#36;', position: 'left', decimalSeparator: '.', thousandsSeparator: ',' },
  dateFormat: 'F j, Y',
  timeFormat: 'g:i a',
  timeZone: 'Europe/Paris',
  startOfWeek: 1,
  badges: Object.fromEntries(BADGES.map((name) => [name, defaultBadge(name)])) as AppConfig['badges'],
  attachments: {
    maxCount: 4,
    maxBytes: 5 * 1_048_576,
    types: [...PLUGIN_FILE_TYPES],
  },
  refreshIntervalMs: 20_000,
};

export const AppConfigReply = Type.Object(
  {
    currency: Type.Object({
      id: Type.String({ description: 'ISO 4217 code.', examples: ['USD'] }),
      symbol: Type.String({ description: 'HTML, as the plugin writes it.', examples: ['&#36;'] }),
      position: Type.Union([Type.Literal('left'), Type.Literal('right'), Type.Literal('left_space'), Type.Literal('right_space')]),
      separator: Type.Object({ decimal: Str, thousand: Str }),
    }),
    datetime_fmt: Type.Object(
      { time: Str, date: Str },
      { description: 'time_format and date_format as Moment.js formats.', examples: [{ time: 'h:mm a', date: 'MMMM D, YYYY' }] },
    ),
    timezone: TimeZone,
    tz: TimeZone,
    date_format: Type.String({ description: 'PHP date() format.', examples: ['F j, Y'] }),
    time_format: Type.String({ description: 'PHP date() format.', examples: ['g:i a'] }),
    start_of_week: Type.Integer({ minimum: 0, maximum: 6, description: '0: Sunday.' }),
    badges: Type.Object({ new: Badge, popular: Badge, featured: Badge, top: Badge, bump_up: Badge }),
    chat: Type.Object({
      enable: Bool,
      attachment: Type.Object({
        max_limit: Type.Integer({ description: 'Most files in one message (`FILES_MAX_COUNT`).', examples: [4] }),
        max_size_mb: Type.Number({
          description: 'Largest file in MB of 1048576 bytes (`FILES_MAX_BYTES`), to the hundredth below.',
          examples: [5],
        }),
        image_types: Type.Array(Str, {
          description: 'The `image/` types of `FILES_TYPES`, as subtypes.',
          examples: [['jpeg', 'png', 'webp']],
        }),
        file_types: Type.Array(Str, {
          description: 'The other types of `FILES_TYPES`: `application/` ones as subtypes, others whole.',
          examples: [['pdf', 'msword']],
        }),
      }),
      refresh_interval: Type.Integer({ description: 'How often the apps poll the chat, in ms.', examples: [20000] }),
      pusher: Type.Optional(
        Type.Object(
          { app_key: Type.Union([Str, Type.Null()]), app_cluster: Type.Union([Str, Type.Null()]) },
          { description: 'Only when the WordPress site turned its Pusher on (its public app key; never the secret).' },
        ),
      ),
    }),
  },
  { additionalProperties: true, examples: [appConfigReply(EXAMPLE_CONFIG)] },
);

export function appConfigSchema(limits: { bodyLimit: number }) {
  return {
    operationId: 'appConfig',
    summary: "The marketplace's settings the apps read at start",
    description:
      "The part of the Classified Listing plugin's `config` that Souk knows: currency, date and time formats, time zone, " +
      "badges and the chat's switch, attachment limits and poll interval. On a WordPress site the values are the site's " +
      "settings, elsewhere Souk's (the attachment limits are always the ones Souk enforces). Needs `X-API-KEY`, no token. " +
      'A change shows within `SETTINGS_REFRESH_MS`.',
    tags: ['app'],
    security: [{ apiKey: [] }],
    headers: RequestHeaders,
    response: { 200: success(AppConfigReply, "The marketplace's settings."), ...appRouteErrors(limits) },
  };
}
