/** Command-line options of `npm run bench` and the data-set sizes they imply. */
import { parseArgs } from 'node:util';

export interface DatasetSizes {
  users: number;
  listings: number;
  /** Average favourites per user (each user gets avg-2 .. avg+2). */
  favouritesPerUser: number;
  conversations: number;
  /** Users whose requests the read rows send (bench/dataset.ts): each with 30 favourites and 25 conversations of 60 messages. */
  readers: number;
  /** The heaviest users, taken from the last readers (bench/dataset.ts); none when absent. */
  heavy?: HeavySizes;
}

/** The heavy rows' users: `perKind` of each kind, on SQLite and PostgreSQL. */
export interface HeavySizes {
  perKind: number;
  /** A chat-list-heavy user's conversations (their 25 reader's threads among them). */
  conversations: number;
  /** A favourites-heavy user's favourites (their 30 among them), at most half the listings. */
  favourites: number;
  /** The messages of a chat-poll-long user's long conversation. */
  messages: number;
}

export const HEAVY_SIZES: HeavySizes = { perKind: 2, conversations: 1_000, favourites: 5_000, messages: 100_000 };
export const SMOKE_HEAVY_SIZES: HeavySizes = { perKind: 1, conversations: 1_000, favourites: 2_000, messages: 10_000 };

export interface BenchOptions {
  quick: boolean;
  /** Every row briefly, no row's minimum: proves that each runs and answers right; its figures mean little. */
  smoke: boolean;
  /** Measured seconds per row. */
  duration: number;
  /** Warm-up seconds before each measured row (results discarded). */
  warmup: number;
  connections: number;
  /** Souk (and bare) processes; more than 1 needs PostgreSQL. */
  instances: number;
  keep: boolean;
  /** A data set kept by an earlier run with --keep (its SQLite file or PostgreSQL schema), used again instead of building one. */
  reuse: string | undefined;
  /** The data set's size as a multiple of the default (users, listings, conversations, readers). */
  scale: number;
  /**
   * Souk's production settings: the abuse limits and rate limits on and counting (set high enough
   * that the bench's users never reach them) and logging at its default level. Off (--limits-off):
   * the limits off and only warnings logged, as the tables before 2026-12-02 ran.
   */
  production: boolean;
  /** Souk's e-mail on, against a local SMTP server that drops what it gets (bench/mail-sink.ts). */
  mail: boolean;
  /** Souk's Pusher events on, against a local stand-in for Pusher's HTTP API (bench/pusher-sink.ts). */
  pusher: boolean;
  profile: boolean;
  /** Run the servers under valgrind's callgrind and count instructions per request. */
  instructions: boolean;
  countQueries: boolean;
  apiKeyTiming: boolean;
  signInRefusals: boolean;
  /** Run `npm run build` first: 'auto' builds only when dist/ is older than src/. */
  build: 'auto' | 'always' | 'never';
  /** Comma-separated row names to run (default: all). */
  only: string[] | undefined;
  databaseUrl: string | undefined;
  sizes: DatasetSizes;
  /** Event streams the stream rows hold open (at most one per user of the data set). */
  streams: number;
  /** Messages per second the streams row sends. */
  messageRate: number;
}

export const FULL_SIZES: DatasetSizes = { users: 10_000, listings: 100_000, favouritesPerUser: 5, conversations: 20_000, readers: 200 };
export const QUICK_SIZES: DatasetSizes = { users: 1_000, listings: 5_000, favouritesPerUser: 5, conversations: 2_000, readers: 40 };

export const USAGE = `usage: npm run bench -- [options]

  --quick              small data set, 1 s warm-up, 3 s rows (the photo row 15 s): the whole run in about two minutes
  --smoke              --quick's data set, 0.5 s warm-up, 1 s rows, no row longer: every row runs and its replies
                       are checked, in under a minute; the figures mean little (CI)
  --duration SECONDS   measured seconds per row (default 20; 3 with --quick, 1 with --smoke)
  --warmup SECONDS     warm-up seconds before each row (default 5; 1 with --quick, 0.5 with --smoke)
  --connections N      concurrent connections of the load generator (default 50)
  --instances N        N Souk processes (and N bare servers) on one database; needs DATABASE_URL=postgres://... or mysql://...
  --only ROWS          comma-separated subset of: bare,pgbench (postgres:// only),floor-toggle,floor-start-new,floor-chat-poll,floor-chat-list,
                       floor-favourites,floor-mysql-toggle,floor-mysql-start-new,floor-mysql-chat-poll (mysql:// only),
                       floor-pg-toggle,floor-pg-start-new,floor-pg-chat-poll (postgres:// only),
                       floor-duties-toggle,floor-duties-start-new,floor-pg-duties-toggle,floor-pg-duties-start-new (floor-pg-*: postgres:// only),
                       toggle,toggle-streams,start-new,start-existing,message-send,offer,offer-accept,chat-poll,chat-list,favourites,login,
                       server-upsert-user,server-upsert-listing (not mysql://),toggle-under-logins,streams,
                       chat-list-heavy,favourites-heavy,chat-poll-long (the heaviest users; not mysql://),
                       console-reports,console-user,console-conversation,toggle-under-console (the staff console; not mysql://)
  --streams N          open event streams (GET my/events, one per user) of the rows toggle-streams and streams
                       (default 10000; 1000 with --quick; at most the data set's users)
  --message-rate N     messages per second the streams row sends to users holding a stream (default 1000)
  --mail               turn Souk's e-mail on (SMTP_URL to a local server that drops what it gets): each new
                       message then also joins its recipient's pending mail
  --pusher             turn Souk's Pusher events on (PUSHER_URL to a local server that takes every batch and drops
                       it): each change then also writes its Pusher outbox rows, and they are sent (SQLite, PostgreSQL)
  --keep               keep the benchmark database (SQLite file or PostgreSQL schema) and print where it is
  --reuse WHERE        use a data set kept by --keep (the SQLite file's path, or the PostgreSQL schema's name) instead of
                       building one: what the write rows added is taken away first; give the same size options
  --scale N            the data set N times the default (users, listings, conversations, readers): --scale 10 is
                       100,000 users, 1,000,000 listings, 3,300,000 messages
  --limits-off         run Souk with the abuse and rate limits off and LOG_LEVEL=warn (the tables before 2026-12-02);
                       by default it runs with production settings: every limit on and counting, high enough
                       never to answer 429, and logging at its default (info: a line per request)
  --profile            start Souk under node --cpu-prof (bench/profiles/) and print the top self-time functions
  --instructions       run each server under valgrind (callgrind) and report the instructions it executes
                       per request in the measured window: a count that other load on the machine
                       barely changes, for comparing two versions (needs valgrind; about 50 times
                       slower: use e.g. --users 1000 --connections 10 --warmup 30 --duration 30)
  --count-queries      only count the SQL statements each operation runs per request, then exit
  --api-key-timing     only time the X-API-KEY comparison for keys of different lengths, then exit
  --sign-in-refusals   only time refused sign-ins for each kind of account (hash forms, unknown, disabled), then exit
  --build / --no-build always / never run npm run build first (default: only when dist/ is older than src/)
  --users N --listings N --conversations N   override the data-set sizes

DATABASE_URL=postgres://... runs on a fresh schema in that database (dropped afterwards); DATABASE_URL=mysql://user@host:port/db
on a fresh database on that MySQL/MariaDB server holding a WordPress site's tables (dropped afterwards); otherwise SQLite.`;

function positive(raw: string | undefined, name: string, fallback: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n <= 0) throw new Error(`${name} must be a positive number, got "${raw}"`);
  return n;
}

export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): BenchOptions | 'help' {
  const { values } = parseArgs({
    args: argv,
    options: {
      quick: { type: 'boolean', default: false },
      smoke: { type: 'boolean', default: false },
      duration: { type: 'string' },
      warmup: { type: 'string' },
      connections: { type: 'string' },
      instances: { type: 'string' },
      only: { type: 'string' },
      keep: { type: 'boolean', default: false },
      reuse: { type: 'string' },
      scale: { type: 'string' },
      'limits-off': { type: 'boolean', default: false },
      mail: { type: 'boolean', default: false },
      pusher: { type: 'boolean', default: false },
      profile: { type: 'boolean', default: false },
      instructions: { type: 'boolean', default: false },
      'count-queries': { type: 'boolean', default: false },
      'api-key-timing': { type: 'boolean', default: false },
      'sign-in-refusals': { type: 'boolean', default: false },
      build: { type: 'boolean' },
      'no-build': { type: 'boolean' },
      users: { type: 'string' },
      listings: { type: 'string' },
      conversations: { type: 'string' },
      streams: { type: 'string' },
      'message-rate': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return 'help';
  const smoke = values.smoke ?? false;
  const quick = smoke || (values.quick ?? false);
  const base = quick ? QUICK_SIZES : FULL_SIZES;
  const databaseUrl = env.DATABASE_URL && env.DATABASE_URL !== '' ? env.DATABASE_URL : undefined;
  if (databaseUrl && !/^(postgres(ql)?|mysql):\/\//.test(databaseUrl)) {
    throw new Error('DATABASE_URL must be postgres://... or mysql://... for the bench (without it the bench uses a fresh SQLite file)');
  }
  const instances = Math.floor(positive(values.instances, '--instances', 1));
  if (instances > 1 && !databaseUrl)
    throw new Error('--instances N > 1 needs DATABASE_URL=postgres://... or mysql://... (instances share one database server)');
  const connections = Math.floor(positive(values.connections, '--connections', 50));
  if (connections < instances) throw new Error('--connections must be at least --instances');
  const scale = positive(values.scale, '--scale', 1);
  const users = Math.floor(positive(values.users, '--users', base.users * scale));
  return {
    quick,
    smoke,
    streams: Math.min(users, Math.floor(positive(values.streams, '--streams', quick ? 1_000 : 10_000))),
    messageRate: positive(values['message-rate'], '--message-rate', 1_000),
    duration: positive(values.duration, '--duration', smoke ? 1 : quick ? 3 : 20),
    warmup: positive(values.warmup, '--warmup', smoke ? 0.5 : quick ? 1 : 5),
    connections,
    instances,
    keep: values.keep ?? false,
    reuse: values.reuse,
    scale,
    production: !(values['limits-off'] ?? false),
    mail: values.mail ?? false,
    pusher: values.pusher ?? false,
    profile: values.profile ?? false,
    instructions: values.instructions ?? false,
    countQueries: values['count-queries'] ?? false,
    apiKeyTiming: values['api-key-timing'] ?? false,
    signInRefusals: values['sign-in-refusals'] ?? false,
    build: values['no-build'] ? 'never' : values.build ? 'always' : 'auto',
    only: values.only
      ?.split(',')
      .map((s) => s.trim())
      .filter(Boolean),
    databaseUrl,
    sizes: {
      users,
      listings: Math.floor(positive(values.listings, '--listings', base.listings * scale)),
      favouritesPerUser: base.favouritesPerUser,
      conversations: Math.floor(positive(values.conversations, '--conversations', base.conversations * scale)),
      // A tenth of the users at most, so that the other rows keep most of them.
      readers: Math.max(1, Math.min(Math.floor(base.readers * scale), Math.floor(users / 10))),
      heavy: smoke ? SMOKE_HEAVY_SIZES : HEAVY_SIZES,
    },
  };
}
