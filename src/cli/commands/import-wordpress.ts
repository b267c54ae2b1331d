/**
 * souk import --from-wordpress mysql://... : copies a WordPress site with Classified Listing (the
 * MySQL store's readers, store/mysql/site-export.ts) into Souk's own database (SQLite or
 * PostgreSQL, DATABASE_URL), keeping every id: users with their password hashes and profiles,
 * listings with images, terms and details, favourites, block lists, conversations and messages.
 * Times: the plugin's chat tables hold the site's local time, read as such into epoch ms.
 *
 * Idempotent and resumable: each page of rows is one transaction that writes only what differs
 * (store/common/site-import.ts), so a second run writes nothing, and a run cut short is finished
 * by running it again. Rows that name what was not copied are left out and counted: a listing of
 * a user missing from wp_users, a favourite or a block of a deleted listing or user, a
 * conversation of a missing user, a message of a conversation not copied. Open conversations the
 * plugin let exist twice for one buyer, seller and listing (Souk keeps one, D6) become their
 * newest one, holding all their messages. Password hashes are never printed.
 */
import { maskUrlSecrets } from '../../config.js';
import type { Conversation } from '../../domain/model.js';
import { openWordpressExport, type WordpressSiteExport } from '../../store/mysql/site-export.js';
import { siteImportWriter, type SiteImportWriter } from '../../store/common/site-import.js';
import { usageError } from '../command.js';
import { dearHashProblem } from '../../auth/passwords/forms.js';
import { CliError, type CliContext } from '../context.js';
import { dearHashMessage } from '../import-document.js';

const PAGE = 200;

interface Counts {
  read: number;
  written: number;
  skipped: number;
}

const counts = (): Counts => ({ read: 0, written: 0, skipped: 0 });

async function* pages(next: (afterId: number) => Promise<number[]>): AsyncGenerator<number[]> {
  let after = 0;
  for (;;) {
    const ids = await next(after);
    if (ids.length === 0) return;
    yield ids;
    after = ids[ids.length - 1]!;
  }
}

async function copy(site: WordpressSiteExport, to: SiteImportWriter, now: number) {
  const users = counts();
  const listings = counts();
  const favourites = counts();
  const blocks = counts();
  const conversations = counts();
  const messages = counts();
  const copiedUsers = new Set<number>();
  const copiedListings = new Set<number>();

  for await (const ids of pages((after) => site.userIds(after, PAGE))) {
    const found = await site.users(ids);
    // Before the page is written: a hash too dear to verify would hold a password thread at each sign-in.
    const dear = found.find((u) => u.passwordHash !== undefined && dearHashProblem(u.passwordHash) !== undefined);
    if (dear) throw new CliError(dearHashMessage(dear.id, dear.login, dear.passwordHash!));
    users.read += found.length;
    users.written += await to.users(found);
    for (const u of found) copiedUsers.add(u.id);
  }

  for await (const ids of pages((after) => site.listingIds(after, PAGE))) {
    const found = await site.listings(ids, now);
    // A listing's owner must exist (a user deleted without reassigning their posts).
    const owned = found.filter((l) => copiedUsers.has(l.ownerId));
    listings.read += found.length;
    listings.skipped += found.length - owned.length;
    listings.written += await to.listings(owned);
    for (const l of owned) copiedListings.add(l.id);
  }

  const userIds = [...copiedUsers].sort((a, b) => a - b);
  for (let i = 0; i < userIds.length; i += PAGE) {
    const page = userIds.slice(i, i + PAGE);
    const lists = await site.favourites(page);
    for (const [user, list] of lists) {
      favourites.read += list.length;
      lists.set(
        user,
        list.filter((id) => copiedListings.has(id)),
      );
      favourites.skipped += list.length - lists.get(user)!.length;
    }
    favourites.written += await to.favourites(page, lists);
    const blockLists = await site.blocks(page);
    for (const [user, list] of blockLists) {
      const kept = {
        users: list.users.filter((id) => copiedUsers.has(id)),
        listings: list.listings.filter((id) => copiedListings.has(id)),
      };
      blocks.read += list.users.length + list.listings.length;
      blocks.skipped += list.users.length + list.listings.length - kept.users.length - kept.listings.length;
      blockLists.set(user, kept);
    }
    blocks.written += await to.blocks(page, blockLists);
  }

  // Duplicates go into the group's newest conversation, which comes last (ids ascending).
  const { mergedInto } = await site.duplicateConversations();
  const merged = new Map<number, Conversation[]>();
  const copiedConversations = new Set<number>();
  for (let after = 0; ;) {
    const found = await site.conversations(after, PAGE);
    if (found.length === 0) break;
    after = found[found.length - 1]!.id;
    conversations.read += found.length;
    const kept: Conversation[] = [];
    for (const c of found) {
      if (!copiedUsers.has(c.senderId) || !copiedUsers.has(c.recipientId)) {
        conversations.skipped++;
        continue;
      }
      const target = mergedInto.get(c.id);
      if (target !== undefined) {
        merged.set(target, [...(merged.get(target) ?? []), c]);
        continue;
      }
      const older = merged.get(c.id) ?? [];
      const lastIds = [c, ...older].map((x) => x.lastMessageId).filter((id): id is number => id !== null);
      kept.push({
        ...c,
        lastMessageId: lastIds.length ? Math.max(...lastIds) : null,
        createdAt: Math.min(c.createdAt, ...older.map((x) => x.createdAt)),
        updatedAt: Math.max(c.updatedAt, ...older.map((x) => x.updatedAt)),
      });
    }
    conversations.written += await to.conversations(kept);
    for (const c of kept) copiedConversations.add(c.id);
  }

  for (let after = 0; ;) {
    const found = await site.messages(after, PAGE);
    if (found.length === 0) break;
    after = found[found.length - 1]!.id;
    messages.read += found.length;
    const kept = found
      .map((m) => ({ ...m, conId: mergedInto.get(m.conId) ?? m.conId }))
      .filter((m) => copiedConversations.has(m.conId) && copiedUsers.has(m.sourceId));
    messages.skipped += found.length - kept.length;
    messages.written += await to.messages(kept);
  }

  await to.finish(users.written + listings.written > 0);
  return { users, listings, favourites, blocks, conversations, messages, mergedConversations: mergedInto.size };
}

export async function importFromWordpress(ctx: CliContext, url: string): Promise<void> {
  if (!url.startsWith('mysql://')) throw usageError('import', '--from-wordpress must be mysql://USER:PASSWORD@HOST:PORT/DB');
  if (ctx.store.dialect === 'mysql') {
    throw new CliError("import --from-wordpress copies a site into Souk's own database: DATABASE_URL must be sqlite: or postgres://");
  }
  const site = openWordpressExport(url, {
    tablePrefix: ctx.config.db.wordpressTablePrefix ?? 'wp_',
    connectTimeoutMs: ctx.config.db.connectTimeoutMs,
  });
  try {
    const to = siteImportWriter(ctx.store.db, ctx.store.dialect);
    let result;
    try {
      result = await copy(site, to, Date.now());
    } catch (err) {
      // Never the error's text alone: a failed statement may quote the values it carried (hashes).
      const code = (err as { code?: unknown }).code;
      throw new CliError(
        `copying ${maskUrlSecrets(url)} stopped${typeof code === 'string' ? ` (${code})` : ''}: ${safeMessage(err)}; what was copied stays, run the import again to finish`,
      );
    }
    const line = (name: string, c: Counts) =>
      `${name}: ${c.read} read, ${c.written} written${c.skipped ? `, ${c.skipped} left out (they name what was not copied)` : ''}`;
    ctx.out(`copied ${maskUrlSecrets(url)}`);
    ctx.out(line('users', result.users));
    ctx.out(line('listings', result.listings));
    ctx.out(line('favourites', result.favourites));
    ctx.out(line('blocks', result.blocks));
    ctx.out(line('conversations', result.conversations));
    if (result.mergedConversations) ctx.out(`  ${result.mergedConversations} duplicate open conversations merged into their newest`);
    ctx.out(line('messages', result.messages));
  } finally {
    await site.close();
  }
}

/** An error's message, unless it holds what may be a password hash; then its kind only. */
function safeMessage(err: unknown): string {
  const message = (err as Error)?.message ?? String(err);
  return /\$(P|H|wp|2[aby]|argon2)/.test(message) ? 'a statement failed' : message;
}
