/**
 * The benchmark's data set on a WordPress site's own tables (DATABASE_URL=mysql://...), written as
 * WordPress and the Classified Listing plugin store it, with the same users, listings, favourites
 * and conversations (same ids) as dataset.ts writes into Souk's own schema:
 *   users         wp_users (the WordPress 6.8 hash of BENCH_PASSWORD) and the usermeta WordPress and
 *                 the plugin write for a subscriber (capabilities, _rtcl_phone, ...); half have a
 *                 profile picture (`_rtcl_pp_id`, an attachment); `rtcl_favourites` PHP-serialised
 *                 as the plugin writes it (`a:2:{i:0;i:1000008;i:1;i:1000010;}`);
 *   listings      wp_posts `rtcl_listing` (ids 1,000,000 + index, as dataset.ts) with the postmeta
 *                 the plugin writes, two categories and one location in the term tables, and three
 *                 image attachments each (ids listing id * 10 + 1..3, so never a listing's id) with
 *                 `_wp_attached_file` and a PHP-serialised `_wp_attachment_metadata` holding the
 *                 plugin's sizes, as on the recorded site;
 *   chat          the plugin's 4.x tables, times in the site's local time (UTC on the recorded
 *                 site), and the first messages' temp_ids in Souk's own souk_message_temp_ids;
 *   options       the recorded site's (database.ts loads them), with its address set to SITE_URL.
 * Multi-row INSERTs of CHUNK rows through one mysql2 connection, committed every few chunks.
 */
import { createConnection, type Connection } from 'mysql2/promise';
import { serialize } from 'php-serialize';
import { hashPassword } from '../src/auth/passwords.js';
import {
  BENCH_PASSWORD,
  CATEGORY_TERMS,
  firstMessage,
  imageId,
  LAST,
  FIRST,
  listingBasics,
  listingId,
  LOCATION_TERMS,
  REPLY_MESSAGE,
  SITE_URL,
  THREAD_MESSAGES,
  userFields,
  userId,
  type Dataset,
  type ThreadRows,
} from './dataset.js';

const CHUNK = 1000;
/** Chunks per transaction: a commit (an fsync with innodb_flush_log_at_trx_commit=1) every 20,000 rows. */
const CHUNKS_PER_COMMIT = 20;
/** Profile pictures: attachments 100,000,000 + user id, clear of listings (1,000,000 + i) and their images (listing id * 10 + k). */
export const PICTURE_ID_BASE = 100_000_000;
const PREFIX = 'wp_';
const UPLOADS = 'classified-listing/2026/10';

export interface WordpressPlan extends Pick<
  Dataset,
  'sizes' | 'owner' | 'favStart' | 'favListing' | 'convId' | 'convListing' | 'convCaller' | 'threadId'
> {
  now: number;
  /** Whether conversation c has the owner's reply (the even ones). */
  replies(c: number): boolean;
  /** Conversation c's creation time, epoch ms. */
  convCreated(c: number): number;
  /** The readers' conversations and their messages (dataset.ts). */
  threads: ThreadRows;
  log(line: string): void;
}

/** The readers' conversations and their messages, in the plugin's chat tables. */
async function writeThreads(w: Writer, plan: WordpressPlan): Promise<void> {
  const { threads } = plan;
  const T = plan.threadId.length;
  const columns = ['con_id', 'listing_id', 'sender_id', 'recipient_id', 'sender_delete', 'recipient_delete', 'last_message_id'];
  await w.insert(
    'rtcl_conversations',
    [...columns, 'sender_review', 'recipient_review', 'invert_review', 'created_at', 'updated_at'],
    T,
    (t, out) => {
      const c = threads.conversation(t);
      out.push([c.id, c.listingId, c.senderId, c.recipientId, 0, 0, c.lastMessageId, 0, 0, 0, local(c.createdAt), local(c.updatedAt)]);
    },
  );
  const messageColumns = ['message_id', 'con_id', 'source_id', 'type', 'message', 'is_read', 'created_at'];
  await w.insert('rtcl_conversation_messages', messageColumns, T * THREAD_MESSAGES, (k, out) => {
    const m = threads.message(k);
    out.push([m.id, m.conId, m.sourceId, 'text', m.text, m.isRead ? 1 : 0, local(m.createdAt)]);
  });
  await w.commit();
}

/** The site's local time (the recorded site: UTC, gmt_offset 0) as WordPress writes it. */
const local = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().slice(0, 19).replace('T', ' ');

type Row = unknown[];

class Writer {
  private pending = 0;
  constructor(private readonly c: Connection) {}

  /** Inserts total rows made by row(i) into table (columns), CHUNK rows a statement. */
  async insert(table: string, columns: string[], total: number, row: (i: number, out: Row[]) => void): Promise<void> {
    const head = `insert into ${PREFIX}${table} (${columns.map((c) => `\`${c}\``).join(', ')}) values ?`;
    let rows: Row[] = [];
    const flush = async () => {
      if (rows.length === 0) return;
      await this.c.query(head, [rows]);
      rows = [];
      if (++this.pending >= CHUNKS_PER_COMMIT) {
        await this.c.query('commit');
        this.pending = 0;
      }
    };
    for (let i = 0; i < total; i++) {
      row(i, rows);
      if (rows.length >= CHUNK) await flush();
    }
    await flush();
  }

  async commit(): Promise<void> {
    await this.c.query('commit');
    this.pending = 0;
  }
}

/** `_wp_attachment_metadata` of a 1200x900 upload with the plugin's three sizes, as WordPress writes it. */
function attachmentMetadata(file: string, name: string, n: number): string {
  const size = (w: number, h: number, bytes: number) => ({
    file: `${name}-${w}x${h}.jpg`,
    width: w,
    height: h,
    'mime-type': 'image/jpeg',
    filesize: bytes,
  });
  return serialize({
    width: 1200,
    height: 900,
    file,
    filesize: 150_000 + (n % 50_000),
    sizes: {
      'rtcl-gallery': size(924, 462, 60_000 + (n % 9_000)),
      'rtcl-thumbnail': size(320, 240, 14_000 + (n % 2_000)),
      'rtcl-gallery-thumbnail': size(150, 105, 5_000 + (n % 900)),
    },
    image_meta: {
      aperture: '0',
      credit: '',
      camera: '',
      caption: '',
      created_timestamp: '0',
      copyright: '',
      focal_length: '0',
      iso: '0',
      shutter_speed: '0',
      title: '',
      orientation: '0',
      keywords: [],
    },
  });
}

const POST_COLUMNS = [
  'ID',
  'post_author',
  'post_date',
  'post_date_gmt',
  'post_content',
  'post_title',
  'post_excerpt',
  'post_status',
  'comment_status',
  'ping_status',
  'post_name',
  'to_ping',
  'pinged',
  'post_modified',
  'post_modified_gmt',
  'post_content_filtered',
  'post_parent',
  'guid',
  'menu_order',
  'post_type',
  'post_mime_type',
];

function post(
  id: number,
  author: number,
  at: number,
  content: string,
  title: string,
  status: string,
  name: string,
  parent: number,
  guid: string,
  order: number,
  type: string,
  mime: string,
): Row {
  const when = local(at);
  return [
    id,
    author,
    when,
    when,
    content,
    title,
    '',
    status,
    'closed',
    'closed',
    name,
    '',
    '',
    when,
    when,
    '',
    parent,
    guid,
    order,
    type,
    mime,
  ];
}

/** The plugin's post status of the data set's statuses. */
const POST_STATUS: Record<string, string> = { publish: 'publish', pending: 'pending', expired: 'rtcl-expired', draft: 'draft' };

export async function writeWordpressDataset(url: string, plan: WordpressPlan): Promise<void> {
  const { sizes, owner, favStart, favListing, convListing, convCaller, now, replies, convCreated, log } = plan;
  const U = sizes.users;
  const L = sizes.listings;
  const C = sizes.conversations;
  const c = await createConnection({ uri: url, charset: 'utf8mb4', dateStrings: true });
  let t = performance.now();
  const lap = (what: string) => {
    log(`  ${what} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
    t = performance.now();
  };
  try {
    await c.query('set session unique_checks = 0, foreign_key_checks = 0, autocommit = 0');
    const w = new Writer(c);
    await c.query(`update ${PREFIX}options set option_value = ? where option_name in ('siteurl', 'home')`, [SITE_URL]);

    // Users: one hash for all (the same work per sign-in as one hash each).
    const passwordHash = await hashPassword(BENCH_PASSWORD);
    const registered = local(now - 400 * 86_400_000);
    await w.insert(
      'users',
      ['ID', 'user_login', 'user_pass', 'user_nicename', 'user_email', 'user_url', 'user_registered', 'user_status', 'display_name'],
      U,
      (u, out) => {
        const f = userFields(u);
        out.push([f.id, f.login, passwordHash, f.login, f.email, f.website, registered, 0, f.name]);
      },
    );
    const capabilities = serialize({ subscriber: true });
    await w.insert('usermeta', ['user_id', 'meta_key', 'meta_value'], U, (u, out) => {
      const f = userFields(u);
      const id = f.id;
      const meta = (key: string, value: string) => out.push([id, key, value]);
      meta('nickname', f.login);
      meta('first_name', FIRST[u % FIRST.length]!);
      meta('last_name', LAST[(u >>> 4) % LAST.length]!);
      meta('description', '');
      meta('rich_editing', 'true');
      meta('syntax_highlighting', 'true');
      meta('comment_shortcuts', 'false');
      meta('admin_color', 'fresh');
      meta('use_ssl', '0');
      meta('show_admin_bar_front', 'true');
      meta('locale', '');
      meta(`${PREFIX}capabilities`, capabilities);
      meta(`${PREFIX}user_level`, '0');
      if (f.phone) meta('_rtcl_phone', f.phone);
      if (f.whatsapp) meta('_rtcl_whatsapp_number', f.whatsapp);
      if (f.website) meta('_rtcl_website', f.website);
      if (f.profile_picture) meta('_rtcl_pp_id', String(PICTURE_ID_BASE + id));
      const favs: number[] = [];
      for (let k = favStart[u]!; k < favStart[u + 1]!; k++) favs.push(listingId(favListing[k]!));
      if (favs.length > 0) meta('rtcl_favourites', serialize(favs));
    });
    // Profile pictures: attachments of no post, uploaded by their user.
    const pictures = Math.ceil(U / 2);
    await w.insert('posts', POST_COLUMNS, pictures, (p, out) => {
      const id = userId(2 * p);
      const name = `avatar-${id}`;
      out.push(
        post(
          PICTURE_ID_BASE + id,
          id,
          now - 300 * 86_400_000,
          '',
          name,
          'inherit',
          name,
          0,
          `${SITE_URL}/wp-content/uploads/${UPLOADS}/${name}.jpg`,
          0,
          'attachment',
          'image/jpeg',
        ),
      );
    });
    await w.insert('postmeta', ['post_id', 'meta_key', 'meta_value'], pictures, (p, out) => {
      const id = userId(2 * p);
      const name = `avatar-${id}`;
      const file = `${UPLOADS}/${name}.jpg`;
      out.push([PICTURE_ID_BASE + id, '_wp_attached_file', file]);
      out.push([PICTURE_ID_BASE + id, '_wp_attachment_metadata', attachmentMetadata(file, name, id)]);
    });
    await w.commit();
    lap(`${U} users (wp_users, wp_usermeta with rtcl_favourites, ${pictures} profile pictures)`);

    // Terms: the data set's categories and locations, counted as WordPress counts them.
    const termCount = new Map<number, number>();
    for (let i = 0; i < L; i++) {
      const b = listingBasics(i, now);
      for (const term of [...b.categories, b.location]) termCount.set(term.term_id, (termCount.get(term.term_id) ?? 0) + 1);
    }
    const terms = [...CATEGORY_TERMS, ...LOCATION_TERMS];
    await w.insert('terms', ['term_id', 'name', 'slug', 'term_group'], terms.length, (k, out) => {
      out.push([terms[k]!.term_id, terms[k]!.name, terms[k]!.slug, 0]);
    });
    await w.insert(
      'term_taxonomy',
      ['term_taxonomy_id', 'term_id', 'taxonomy', 'description', 'parent', 'count'],
      terms.length,
      (k, out) => {
        const term = terms[k]!;
        out.push([term.term_taxonomy_id, term.term_id, term.taxonomy, '', 0, termCount.get(term.term_id) ?? 0]);
      },
    );

    // Listings, their images and their terms.
    await w.insert('posts', POST_COLUMNS, L, (i, out) => {
      const b = listingBasics(i, now);
      const id = listingId(i);
      const author = userId(owner[i]!);
      out.push(
        post(
          id,
          author,
          b.updatedAt,
          `${b.title} in good condition. Pick-up or delivery.`,
          b.title,
          POST_STATUS[b.status]!,
          b.slug,
          0,
          `${SITE_URL}/rtcl_listing/${b.slug}/`,
          0,
          'rtcl_listing',
          '',
        ),
      );
      for (let k = 1; k <= 3; k++) {
        const name = `${b.slug}-${k}`;
        out.push(
          post(
            imageId(i, k),
            author,
            b.updatedAt,
            '',
            name,
            'inherit',
            name,
            id,
            `${SITE_URL}/wp-content/uploads/${UPLOADS}/${name}.jpg`,
            k - 1,
            'attachment',
            'image/jpeg',
          ),
        );
      }
    });
    lap(`${L} listings and ${3 * L} attachments (wp_posts)`);
    await w.insert('postmeta', ['post_id', 'meta_key', 'meta_value'], L, (i, out) => {
      const b = listingBasics(i, now);
      const id = listingId(i);
      const seller = userFields(owner[i]!);
      const meta = (key: string, value: string) => out.push([id, key, value]);
      meta('_rtcl_publish_count', '1');
      meta('_rtcl_review_count', '0');
      meta('_rtcl_rating_count', 'a:0:{}');
      meta('_rtcl_average_rating', '0');
      meta('expiry_date', local(b.updatedAt + 15 * 86_400_000));
      meta('_rtcl_form_id', '1');
      meta('ad_type', 'sell');
      meta('_rtcl_listing_pricing', 'price');
      meta('price_type', 'fixed');
      meta('price', b.price);
      meta('phone', seller.phone);
      meta('email', seller.email);
      meta('address', `${(i % 200) + 1} Test Street`);
      meta('zipcode', String(10_000 + (i % 90_000)));
      meta('latitude', '');
      meta('longitude', '');
      meta('hide_map', '0');
      meta('_views', String(i % 1500));
      meta('_thumbnail_id', String(imageId(i, 1)));
      for (let k = 1; k <= 3; k++) {
        const name = `${b.slug}-${k}`;
        const file = `${UPLOADS}/${name}.jpg`;
        const image = imageId(i, k);
        out.push([image, '_rtcl_attachment_type', 'image']);
        out.push([image, '_wp_attached_file', file]);
        out.push([image, '_wp_attachment_metadata', attachmentMetadata(file, name, image)]);
      }
    });
    lap(`${L} listings' and attachments' postmeta`);
    await w.insert('term_relationships', ['object_id', 'term_taxonomy_id', 'term_order'], L, (i, out) => {
      const b = listingBasics(i, now);
      for (const term of [...b.categories, b.location]) out.push([listingId(i), term.term_taxonomy_id, 0]);
    });
    await w.commit();
    lap(`${L} listings' terms`);

    // Conversations and messages: conversation c's first message is c+1; replies follow after all first messages.
    const replyIds = new Int32Array(C);
    let next = C + 1;
    for (let k = 0; k < C; k++) if (replies(k)) replyIds[k] = next++;
    await w.insert(
      'rtcl_conversations',
      [
        'con_id',
        'listing_id',
        'sender_id',
        'recipient_id',
        'sender_delete',
        'recipient_delete',
        'last_message_id',
        'sender_review',
        'recipient_review',
        'invert_review',
        'created_at',
        'updated_at',
      ],
      C,
      (k, out) => {
        const created = convCreated(k);
        const l = convListing[k]!;
        out.push([
          plan.convId[k],
          listingId(l),
          userId(convCaller[k]!),
          userId(owner[l]!),
          0,
          0,
          replies(k) ? replyIds[k] : k + 1,
          0,
          0,
          0,
          local(created),
          local(replies(k) ? created + 3_600_000 : created),
        ]);
      },
    );
    const messageCount = C + Math.ceil(C / 2);
    await w.insert(
      'rtcl_conversation_messages',
      ['message_id', 'con_id', 'source_id', 'type', 'message', 'is_read', 'created_at'],
      messageCount,
      (m, out) => {
        if (m < C) {
          out.push([m + 1, m + 1, userId(convCaller[m]!), 'text', firstMessage(convListing[m]!), 1, local(convCreated(m))]);
          return;
        }
        const k = (m - C) * 2; // the conversations with a reply are the even ones
        out.push([
          m + 1,
          k + 1,
          userId(owner[convListing[k]!]!),
          'text',
          REPLY_MESSAGE,
          k % 4 === 0 ? 1 : 0,
          local(convCreated(k) + 3_600_000),
        ]);
      },
    );
    await w.insert('souk_message_temp_ids', ['message_id', 'con_id', 'source_id', 'temp_id'], C, (m, out) => {
      out.push([m + 1, m + 1, userId(convCaller[m]!), String(1_700_000_000_000 + m)]);
    });
    await w.commit();
    lap(`${C} conversations with ${messageCount} messages`);
    await writeThreads(w, plan);
    lap(`${plan.threadId.length} readers' conversations with ${plan.threadId.length * THREAD_MESSAGES} messages`);

    // What InnoDB's persistent statistics would learn soon after a bulk load.
    await c.query(
      `analyze table ${['users', 'usermeta', 'posts', 'postmeta', 'terms', 'term_taxonomy', 'term_relationships', 'rtcl_conversations', 'rtcl_conversation_messages', 'souk_message_temp_ids'].map((x) => PREFIX + x).join(', ')}`,
    );
    lap('analyze table');
  } finally {
    await c.end();
  }
}
