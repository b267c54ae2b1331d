/**
 * A user's data (docs/safety.md, GDPR articles 15, 17 and 20): the export, one JSON
 * document of everything Souk keeps of and for the user, and the erasure.
 */
import type { AuditRecord } from './audit.js';
import type { ErasureCounts, ModerationResult } from './moderation.js';
import type { Conversation, Message, User } from './model.js';
import type { MessageEdit, ReportAdmin, Repositories, UnitOfWork } from './ports.js';
import type { Report } from './reports.js';

/**
 * The user's records that other safety features keep: blocks (the block lists) and reports. Each
 * lists and forgets its own; until a store has them, NO_SAFETY_RECORDS answers none.
 */
export interface SafetyRecords {
  /** The users and listings the user blocked. */
  blocksOf(userId: number): Promise<{ users: number[]; listings: number[] }>;
  /** The reports the user made, each as its feature presents it. */
  reportsBy(userId: number): Promise<unknown[]>;
  /** Forgets the user's blocks; how many. */
  forgetBlocksOf(userId: number): Promise<number>;
  /** Forgets the reports the user made; how many. */
  forgetReportsBy(userId: number): Promise<number>;
}

/** A store without block lists or reports: nothing to export or forget. */
export const NO_SAFETY_RECORDS: SafetyRecords = {
  blocksOf: async () => ({ users: [], listings: [] }),
  reportsBy: async () => [],
  forgetBlocksOf: async () => 0,
  forgetReportsBy: async () => 0,
};

const isoOrNull = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/** A report as its maker's export shows it: what they reported, why, and the messages as they were then. */
const exportedReport = (r: Report) => ({
  id: r.id,
  kind: r.kind,
  listing_id: r.listingId,
  con_id: r.conId,
  message_id: r.messageId,
  reported_user_id: r.reportedUserId,
  reason: r.reason,
  messages: r.messages.map((m) => ({ id: m.id, sender_id: m.sourceId, text: m.text, created_at: isoOrNull(m.createdAt) })),
  created_at: isoOrNull(r.createdAt),
  closed_at: isoOrNull(r.closedAt),
});

/** A store's block lists and reports as SafetyRecords. */
export function safetyRecordsOf(uow: UnitOfWork, repos: Repositories, reports: ReportAdmin): SafetyRecords {
  return {
    blocksOf: async (userId) => ({
      users: await repos.blocks.blockedUserIds(userId),
      listings: await repos.blocks.blockedListingIds(userId),
    }),
    // Through the routes' own unblocking, so that each database keeps its lists and locks as a block does.
    forgetBlocksOf: (userId) =>
      uow.transaction(async (trx) => {
        let forgotten = 0;
        for (const id of await trx.blocks.blockedUserIds(userId)) if (await trx.blocks.unblockUser(userId, id)) forgotten++;
        for (const id of await trx.blocks.blockedListingIds(userId)) if (await trx.blocks.unblockListing(userId, id)) forgotten++;
        return forgotten;
      }, userId),
    reportsBy: async (userId) => (await reports.madeBy(userId)).map(exportedReport),
    forgetReportsBy: (userId) => reports.forgetMadeBy(userId),
  };
}

export interface UserDataDeps {
  /** Reads outside any transaction. */
  repos: Repositories;
  /** The user's push devices' tokens, where the store keeps them. */
  deviceTokens?: (userId: number) => Promise<string[]>;
  safety: SafetyRecords;
}

const iso = (ms: number) => new Date(ms).toISOString();
const PAGE = 100;

function profile(u: User) {
  return {
    id: u.id,
    login: u.login,
    name: u.name,
    email: u.email,
    phone: u.phone,
    whatsapp: u.whatsapp,
    website: u.website,
    profile_picture: u.profilePicture,
    first_name: u.firstName,
    last_name: u.lastName,
    description: u.description,
    address: u.address,
    zipcode: u.zipcode,
    latitude: u.latitude,
    longitude: u.longitude,
    locations: u.locations,
    is_admin: u.isAdmin,
    disabled: u.disabled,
    registered_at: u.registeredAt === null ? null : iso(u.registeredAt),
  };
}

/** A message as the export shows it; one its sender corrected with when, and (the user's own) each text it had before. */
const exportedMessage = (m: Message, edits: ReadonlyMap<number, MessageEdit[]>) => ({
  id: m.id,
  sender_id: m.sourceId,
  text: m.text,
  type: m.type,
  attachments: m.attachments ?? [],
  is_read: m.isRead,
  created_at: iso(m.createdAt),
  ...(m.editedAt !== undefined && { edited_at: iso(m.editedAt) }),
  ...(edits.has(m.id) && {
    edits: edits.get(m.id)!.map((e) => ({ previous_text: e.previousText, text: e.text, edited_at: iso(e.editedAt) })),
  }),
});

async function allMessages(repos: Repositories, conId: number): Promise<Message[]> {
  const messages: Message[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const page = await repos.messages.pageOf(conId, 0, offset, PAGE);
    messages.push(...page);
    if (page.length < PAGE) return messages.reverse();
  }
}

/** Every conversation the user sees (not left), each with every message in it, oldest first. */
async function conversations(repos: Repositories, userId: number) {
  const edits = new Map<number, MessageEdit[]>();
  for (const e of (await repos.edits?.ofUser(userId)) ?? []) edits.set(e.messageId, [...(edits.get(e.messageId) ?? []), e]);
  const seen: Conversation[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const rows = await repos.conversations.listFor(userId, offset, PAGE, false);
    seen.push(...rows.map((r) => r.conversation));
    if (rows.length < PAGE) break;
  }
  const out = [];
  for (const c of seen) {
    const otherId = c.senderId === userId ? c.recipientId : c.senderId;
    // Of the other participant, what every conversation shows by name only: no contact data.
    const other = await repos.users.findById(otherId);
    const listing = await repos.listings.findById(c.listingId);
    out.push({
      id: c.id,
      role: c.senderId === userId ? 'sender' : 'recipient',
      listing: listing ? { id: listing.id, title: listing.title } : { id: c.listingId, title: null },
      other_user: { id: otherId, name: other ? other.name || other.login : null },
      created_at: iso(c.createdAt),
      updated_at: iso(c.updatedAt),
      messages: (await allMessages(repos, c.id)).map((m) => exportedMessage(m, edits)),
    });
  }
  return out;
}

export type UserExport = Awaited<ReturnType<typeof buildExport>>;

async function buildExport(deps: UserDataDeps, user: User, now: number) {
  const { repos } = deps;
  const favouriteIds = await repos.favourites.listIds(user.id);
  const favourites = [];
  for (const id of favouriteIds) favourites.push({ listing_id: id, title: (await repos.listings.findById(id))?.title ?? null });
  return {
    format: 'souk-user-export',
    version: 1,
    exported_at: iso(now),
    user: profile(user),
    favourites,
    blocks: await deps.safety.blocksOf(user.id),
    devices: ((await deps.deviceTokens?.(user.id)) ?? []).map((token) => ({ push_token: token })),
    conversations: await conversations(repos, user.id),
    reports: await deps.safety.reportsBy(user.id),
  };
}

/** The user's data as one document (article 15 and 20), or undefined when there is no such user. */
export async function exportUserData(deps: UserDataDeps, userId: number, now = Date.now()): Promise<UserExport | undefined> {
  const user = await deps.repos.users.findById(userId);
  return user && buildExport(deps, user, now);
}

export interface Erasure extends ErasureCounts {
  blocks: number;
  reports: number;
}

/**
 * Erases the user (article 17): in one transaction, under the lock that holds every send from or
 * to them, they are closed and their data erased (ModerationRepository.erase); then their blocks
 * and reports go. Idempotent: erasing again finds nothing more. Revoking their tokens is the
 * caller's (auth/revoked-tokens.ts).
 */
export async function eraseUser(
  uow: UnitOfWork,
  safety: SafetyRecords,
  userId: number,
  now = Date.now(),
  audit?: AuditRecord,
): Promise<ModerationResult<Erasure>> {
  const erased = await uow.transaction(async (repos): Promise<ModerationResult<ErasureCounts>> => {
    if (!repos.moderation) throw new Error('this store has no moderation repository');
    if (!(await repos.moderation.lockUser(userId))) return { ok: false, error: 'no_such_user' };
    const counts = await repos.moderation.erase(userId, now);
    if (audit) await repos.moderation.recordAudit(audit);
    return { ok: true, value: counts };
  });
  if (!erased.ok) return erased;
  const blocks = await safety.forgetBlocksOf(userId);
  const reports = await safety.forgetReportsBy(userId);
  return { ok: true, value: { ...erased.value, blocks, reports } };
}
