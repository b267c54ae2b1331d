/**
 * What every part of the MySQL store shares: the Kysely handle (mysql2 through Kysely's
 * MysqlDialect; the queries are raw SQL over tables whose names carry the site's prefix), the
 * table names, and what is learnt once at start: the site's options and which form of the
 * plugin's chat tables the site has (4.x, with a message's `type`, `attachments`, `meta` and a
 * conversation's `updated_at`, or 2.x without them).
 */
import { CompiledQuery, sql, type Kysely, type QueryResult, type RawBuilder } from 'kysely';
import { ListingCache } from '../common/listing-cache.js';
import { OPTION_NAMES, readSiteOptions, type SiteOptions } from './site.js';

/**
 * How long what Souk read from the site (a user, a listing's meta, terms and images) may be reused
 * before it is read again: the site changes them without telling Souk, and not always with a
 * trace Souk could check (a meta written alone, a term added, an image uploaded).
 */
export const CATALOG_PERIOD_MS = 30_000;

/**
 * Listings kept (ListingCache): more than on Souk's own schema, where a listing is one row, as a
 * WordPress listing costs three queries and the parsing of its images' PHP-serialised metadata
 * to read again. About 10 KB each: 50 MB at most.
 */
const LISTINGS_KEPT = 5_000;

/** The site's tables are addressed by name (sql.table), not through a typed schema. */
export type WpDatabase = Record<string, never>;
export type Db = Kysely<WpDatabase>;

export interface Tables {
  prefix: string;
  users: string;
  usermeta: string;
  posts: string;
  postmeta: string;
  options: string;
  terms: string;
  termTaxonomy: string;
  termRelationships: string;
  conversations: string;
  messages: string;
  /** Souk's own (migrations/). */
  soukSettings: string;
  soukRevokedTokens: string;
  soukMessageTempIds: string;
  /** Souk's event log, webhook and push outboxes (migrations/). */
  soukEventSequences: string;
  soukEvents: string;
  soukEventTickets: string;
  soukWebhookOutbox: string;
  soukPushDevices: string;
  soukPushOutbox: string;
  /** Moderation's barrier row (migrations/009). */
  soukModerationBarrier: string;
  /** Souk's reports (migrations/008), and the reported messages kept once each (migrations/013). */
  soukReports: string;
  soukReportMessageCopies: string;
  soukReportMessages: string;
  /** Souk's mail outbox (migrations/011-souk-mail.ts). */
  soukMailOutbox: string;
  /** The server API's keys and the audit log (migrations/015-souk-server-api.ts). */
  soukServerKeys: string;
  soukAuditLog: string;
  soukStaff: string;
  /** The stored files Souk's messages name (migrations/012-souk-message-files.ts). */
  soukMessageFiles: string;
  /** Souk's Pusher outbox (migrations/014-souk-pusher.ts). */
  soukPusherOutbox: string;
  /** The senders' corrections of their messages (migrations/018-souk-message-edits.ts). */
  soukMessageEdits: string;
}

export function tables(prefix: string): Tables {
  return {
    prefix,
    users: `${prefix}users`,
    usermeta: `${prefix}usermeta`,
    posts: `${prefix}posts`,
    postmeta: `${prefix}postmeta`,
    options: `${prefix}options`,
    terms: `${prefix}terms`,
    termTaxonomy: `${prefix}term_taxonomy`,
    termRelationships: `${prefix}term_relationships`,
    conversations: `${prefix}rtcl_conversations`,
    messages: `${prefix}rtcl_conversation_messages`,
    soukSettings: `${prefix}souk_settings`,
    soukRevokedTokens: `${prefix}souk_revoked_tokens`,
    soukMessageTempIds: `${prefix}souk_message_temp_ids`,
    soukEventSequences: `${prefix}souk_event_sequences`,
    soukEvents: `${prefix}souk_events`,
    soukEventTickets: `${prefix}souk_event_tickets`,
    soukWebhookOutbox: `${prefix}souk_webhook_outbox`,
    soukPushDevices: `${prefix}souk_push_devices`,
    soukPushOutbox: `${prefix}souk_push_outbox`,
    soukModerationBarrier: `${prefix}souk_moderation_barrier`,
    soukReports: `${prefix}souk_reports`,
    soukReportMessageCopies: `${prefix}souk_report_message_copies`,
    soukReportMessages: `${prefix}souk_report_messages`,
    soukMailOutbox: `${prefix}souk_mail_outbox`,
    soukServerKeys: `${prefix}souk_server_keys`,
    soukAuditLog: `${prefix}souk_audit_log`,
    soukStaff: `${prefix}souk_staff`,
    soukMessageFiles: `${prefix}souk_message_files`,
    soukPusherOutbox: `${prefix}souk_pusher_outbox`,
    soukMessageEdits: `${prefix}souk_message_edits`,
  };
}

/** The chat tables' form, from their columns. */
export interface ChatForm {
  /** Messages have `type`, `attachments`, `meta` (4.x). */
  messageDetails: boolean;
  /** Conversations have `updated_at` (4.x). */
  conversationUpdatedAt: boolean;
}

export interface MysqlContext {
  db: Db;
  t: Tables;
  /** The site's options and the chat tables' form, read once (the first call reads them). */
  site(): Promise<SiteOptions>;
  chat(): Promise<ChatForm>;
  /** Listings read lately, kept with the version of their post row (catalog.ts). */
  listings: ListingCache;
  /** The connections allow several statements in one query (mysql2's multipleStatements): see together. */
  severalStatements: boolean;
}

export const T = (name: string) => sql.table(name);

/** Through db.executeQuery, as every statement here: a unit of work's connection sends what waits with it (unit-of-work.ts). */
export async function rows<R>(db: Db, query: RawBuilder<R>): Promise<R[]> {
  return (await db.executeQuery(query.compile(db))).rows;
}

export type Result<R> = { rows: R[]; insertId?: bigint; numAffectedRows?: bigint };

/** A statement's result as mysql2 gives it (rows, or a result header) in Kysely's form, as Kysely's MySQL driver makes it. */
export function toResult(raw: unknown): QueryResult<unknown> {
  if (Array.isArray(raw)) return { rows: raw };
  const header = raw as { insertId?: number | string | null; affectedRows?: number | string | null } | null;
  if (!header || typeof header !== 'object' || !('insertId' in header) || !('affectedRows' in header)) return { rows: [] };
  const { insertId, affectedRows } = header;
  return {
    ...(insertId !== undefined && insertId !== null && insertId.toString() !== '0' ? { insertId: BigInt(insertId) } : {}),
    ...(affectedRows !== undefined && affectedRows !== null ? { numAffectedRows: BigInt(affectedRows) } : {}),
    rows: [],
  };
}

/** How a routed connection sends several statements (routedThrough): a unit of work's, after what waits to go with them. */
const senders = new WeakMap<Db, (queries: CompiledQuery[]) => Promise<QueryResult<unknown>[]>>();

/** `connection` with every statement (executeQuery, and a query builder's execute) sent by `send`. */
export function routedThrough(connection: Db, send: (queries: CompiledQuery[]) => Promise<QueryResult<unknown>[]>): Db {
  const one = async (query: CompiledQuery) => (await send([query]))[0]!;
  const bound = (target: object, prop: string | symbol) => {
    const value: unknown = Reflect.get(target, prop, target);
    // Kysely's objects keep private fields: their methods must run on them, not on the proxy.
    return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
  };
  const executor = connection.getExecutor();
  const routedExecutor = new Proxy(executor, {
    get: (target, prop) => (prop === 'executeQuery' ? one : bound(target, prop)),
  });
  const routed = new Proxy(connection, {
    get: (target, prop) => {
      if (prop === 'executeQuery')
        return (query: CompiledQuery | { compile(): CompiledQuery }) => one('compile' in query ? query.compile() : query);
      if (prop === 'getExecutor') return () => routedExecutor;
      return bound(target, prop);
    },
  });
  senders.set(routed, send);
  return routed;
}

/**
 * Several statements in one round trip, their results in order: one text of statements separated
 * by semicolons (the pool's connections allow several; every value is a placeholder, escaped by
 * mysql2), which MariaDB runs in order, stopping at the first error. A round trip costs both
 * processes a system call to write and a wake-up, more than a small statement's own work.
 */
export async function together(db: Db, ctx: MysqlContext, queries: CompiledQuery[]): Promise<QueryResult<unknown>[]> {
  const send = senders.get(db);
  if (send) return send(queries);
  if (queries.length === 1) return [await db.executeQuery(queries[0]!)];
  // Elsewhere (the import's own pool) one after the other.
  if (!ctx.severalStatements) return Promise.all(queries.map((q) => db.executeQuery(q)));
  const joined = CompiledQuery.raw(
    queries.map((q) => q.sql).join(';\n'),
    queries.flatMap((q) => q.parameters),
  );
  // Kysely hands mysql2's answer to several statements on as rows: one result per statement.
  const results = (await db.executeQuery(joined)).rows;
  return results.map(toResult);
}

/** Marks where an argument lands in a statement's compiled parameters; compared by identity. */
class Slot {
  constructor(readonly index: number) {}
}

/**
 * A request-path statement, built and compiled by Kysely once per store (per context, and per
 * `variant` of it, e.g. the chat tables' form), then only run with new arguments: Kysely's
 * building and compiling cost more than the round trip of a small query.
 */
export function statement<A extends unknown[], R>(build: (ctx: MysqlContext, variant: string, ...args: A) => RawBuilder<R>) {
  const templates = new WeakMap<MysqlContext, Map<string, { sql: string; slots: number[]; constants: readonly unknown[] }>>();
  /** The statement with these arguments, to run alone or with others (together). */
  const compiled = (ctx: MysqlContext, variant: string, ...args: A): CompiledQuery<R> => {
    let byVariant = templates.get(ctx);
    if (!byVariant) templates.set(ctx, (byVariant = new Map()));
    let t = byVariant.get(variant);
    if (!t) {
      const slots = Array.from({ length: args.length }, (_, i) => new Slot(i));
      const compiled = build(ctx, variant, ...(slots as unknown as A)).compile(ctx.db);
      t = {
        sql: compiled.sql,
        slots: compiled.parameters.map((p) => (p instanceof Slot ? p.index : -1)),
        constants: compiled.parameters,
      };
      byVariant.set(variant, t);
    }
    const { slots, constants } = t;
    const parameters = slots.map((slot, i) => (slot >= 0 ? args[slot] : constants[i]));
    return CompiledQuery.raw(t.sql, parameters) as CompiledQuery<R>;
  };
  const run = (db: Db, ctx: MysqlContext, variant: string, ...args: A): Promise<Result<R>> =>
    db.executeQuery(compiled(ctx, variant, ...args)) as Promise<Result<R>>;
  return Object.assign(run, { compiled });
}

async function columnsOf(db: Db, table: string): Promise<Set<string>> {
  const found = await rows(
    db,
    sql<{
      name: string;
    }>`select column_name as name from information_schema.columns where table_schema = database() and table_name = ${table}`,
  );
  return new Set(found.map((r) => r.name.toLowerCase()));
}

/** severalStatements: the pool's connections allow several statements in one query (together). */
export function mysqlContext(db: Db, prefix: string, severalStatements = false): MysqlContext {
  const t = tables(prefix);
  let site: Promise<SiteOptions> | undefined;
  let chat: Promise<ChatForm> | undefined;
  // A failed read (the database down at start) is not kept: the next call tries again.
  const once = <V>(load: () => Promise<V>, set: (p: Promise<V> | undefined) => void) => {
    const p = load();
    set(p);
    p.catch(() => set(undefined));
    return p;
  };
  return {
    db,
    t,
    severalStatements,
    listings: new ListingCache(LISTINGS_KEPT),
    site: () =>
      site ??
      once(
        async () => {
          const found = await rows(
            db,
            sql<{ option_name: string; option_value: string }>`select option_name, option_value from ${T(t.options)}
              where option_name in (${sql.join([...OPTION_NAMES])})`,
          );
          return readSiteOptions(Object.fromEntries(found.map((r) => [r.option_name, r.option_value])));
        },
        (p) => (site = p),
      ),
    chat: () =>
      chat ??
      once(
        async () => {
          const [messages, conversations] = await Promise.all([columnsOf(db, t.messages), columnsOf(db, t.conversations)]);
          if (messages.size === 0 || conversations.size === 0) {
            throw new Error(
              `the plugin's chat tables ${t.conversations} and ${t.messages} are missing (is Classified Listing Pro installed?)`,
            );
          }
          return {
            messageDetails: messages.has('type') && messages.has('attachments'),
            conversationUpdatedAt: conversations.has('updated_at'),
          };
        },
        (p) => (chat = p),
      ),
  };
}
