/** Row <-> record mapping shared by the repositories. */
import type { Selectable } from 'kysely';
import type {
  Conversation,
  ConversationListRow,
  Listing,
  ListingStatus,
  Message,
  MessageType,
  Offer,
  TermObject,
  User,
} from '../../domain/model.js';
import { OFFER_STATUSES } from '../../domain/model.js';
import { MESSAGE_COLUMNS, type ConversationFields, type ListingsTable, type MessagesTable, type UsersTable } from './schema.js';

export function toUser(row: Selectable<UsersTable>): User {
  return {
    id: row.id,
    login: row.login,
    name: row.name,
    email: row.email,
    phone: row.phone,
    whatsapp: row.whatsapp,
    website: row.website,
    profilePicture: row.profile_picture,
    disabled: row.disabled !== 0,
    firstName: row.first_name,
    lastName: row.last_name,
    description: row.description,
    isAdmin: row.is_admin !== 0,
    address: row.address,
    zipcode: row.zipcode,
    latitude: row.latitude,
    longitude: row.longitude,
    locations: JSON.parse(row.locations) as TermObject[],
    registeredAt: row.registered_at === null ? null : Number(row.registered_at),
  };
}

/** `priceType`: the listing's details' (null when it has no details row: imported before migration 009). */
export function toListing(row: Selectable<ListingsTable>, priceType: string | null): Listing {
  return {
    id: row.id,
    ownerId: row.owner_id,
    title: row.title,
    slug: row.slug,
    status: row.status as ListingStatus,
    price: row.price,
    media: { images: row.images, category: row.category, location: row.location },
    priceType: priceType ?? '',
  };
}

export function toConversation(row: Selectable<ConversationFields>): Conversation {
  return {
    id: row.id,
    listingId: row.listing_id,
    senderId: row.sender_id,
    recipientId: row.recipient_id,
    senderDelete: row.sender_delete !== 0,
    recipientDelete: row.recipient_delete !== 0,
    senderReview: row.sender_review !== 0,
    recipientReview: row.recipient_review !== 0,
    invertReview: row.invert_review !== 0,
    lastMessageId: row.last_message_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

type MessageRow = Selectable<MessagesTable>;
/** The columns a Message is made of, in the order a page of messages selects them. */
export const MESSAGE_FIELDS = MESSAGE_COLUMNS;
const AT = Object.fromEntries(MESSAGE_FIELDS.map((column, i) => [column, i])) as Record<keyof MessageRow, number>;
// Each position a constant: one property load per column, whatever the column.
const [ID, CON_ID, SOURCE_ID, TEXT, TYPE, ATTACHMENTS, META, IS_READ, TEMP_ID, CREATED_AT] = [
  AT.id,
  AT.con_id,
  AT.source_id,
  AT.message,
  AT.type,
  AT.attachments,
  AT.meta,
  AT.is_read,
  AT.temp_id,
  AT.created_at,
];

/**
 * A message's `meta` as stored: `{"offer": {...}}` for an offer (domain/chat/offer.ts),
 * `{"edited_at": ms}` for a message its sender corrected (an offer is never corrected), else null
 * (the plugin writes null). The offer's keys are the wire's, so the plugin's table holds what the apps see.
 */
export function metaText(m: { offer?: Offer | undefined; editedAt?: number | undefined }): string | null {
  const o = m.offer;
  if (!o) return m.editedAt === undefined ? null : JSON.stringify({ edited_at: m.editedAt });
  return JSON.stringify({ offer: { amount: o.amount, currency: o.currency, status: o.status, by: o.by, expires_at: o.expiresAt } });
}

const statuses = new Set<string>(OFFER_STATUSES);

/**
 * The offer a stored `meta` holds (JSON text, or already parsed where the driver parses a JSON
 * column); undefined for anything else, so a meta written by another program reads as none.
 */
export function offerOfMeta(meta: unknown): Offer | undefined {
  const o = (parsedMeta(meta) as { offer?: Record<string, unknown> } | null)?.offer;
  if (!o || typeof o !== 'object') return undefined;
  const { amount, currency, status, by, expires_at } = o;
  if (typeof amount !== 'string' || typeof currency !== 'string' || typeof status !== 'string' || !statuses.has(status)) return undefined;
  if (typeof by !== 'number' || typeof expires_at !== 'number') return undefined;
  return { amount, currency, status: status as Offer['status'], by, expiresAt: expires_at };
}

/** A stored `meta` parsed (JSON text, or already parsed where the driver parses a JSON column); undefined when it is not JSON. */
function parsedMeta(meta: unknown): unknown {
  if (typeof meta !== 'string') return meta ?? undefined;
  try {
    return JSON.parse(meta);
  } catch {
    return undefined;
  }
}

/** When a stored `meta` says its message was corrected (metaText), epoch ms. */
function editedAtOfMeta(meta: unknown): number | undefined {
  const at = (parsedMeta(meta) as { edited_at?: unknown } | null | undefined)?.edited_at;
  return typeof at === 'number' && Number.isFinite(at) ? at : undefined;
}

/**
 * The plugin's `system` type (a message an admin removed) reads as text: the interface knows text
 * and attachment, and Souk's offers. An offer is known by its meta: the plugin's own table cannot
 * store the type `offer` (store/mysql/), and a removed offer (type `system`) is one no more.
 */
const messageType = (stored: unknown, offer: Offer | undefined): MessageType =>
  stored === 'attachment' ? 'attachment' : offer && stored !== 'system' ? 'offer' : 'text';

/** A message's type and offer, or the time its sender corrected it, from its stored type and meta. */
export function typeAndOffer(stored: unknown, meta: unknown): { type: MessageType; offer?: Offer; editedAt?: number } {
  if (meta === null || meta === undefined) return { type: messageType(stored, undefined) };
  const offer = offerOfMeta(meta);
  const type = messageType(stored, offer);
  if (type === 'offer') return { type, offer: offer! };
  // A removed message (`system`) was emptied: its correction is no more.
  const editedAt = stored === 'system' ? undefined : editedAtOfMeta(meta);
  return editedAt === undefined ? { type } : { type, editedAt };
}

/** A message from its row read as an array of MESSAGE_FIELDS' values (a page of messages is read so). */
export function toMessageFromValues(values: readonly unknown[]): Message {
  const attachments = values[ATTACHMENTS] as MessageRow['attachments'];
  return {
    id: values[ID] as MessageRow['id'],
    conId: values[CON_ID] as MessageRow['con_id'],
    sourceId: values[SOURCE_ID] as MessageRow['source_id'],
    text: values[TEXT] as MessageRow['message'],
    ...typeAndOffer(values[TYPE], values[META]),
    attachments: attachments === null ? null : JSON.parse(attachments),
    isRead: values[IS_READ] !== 0,
    tempId: values[TEMP_ID] as MessageRow['temp_id'],
    createdAt: values[CREATED_AT] as MessageRow['created_at'],
  };
}

export function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    conId: row.con_id,
    sourceId: row.source_id,
    text: row.message,
    ...typeAndOffer(row.type, row.meta),
    attachments: row.attachments === null ? null : JSON.parse(row.attachments),
    isRead: row.is_read !== 0,
    tempId: row.temp_id,
    createdAt: row.created_at,
  };
}

type ConversationListRowData = Selectable<ConversationFields> & {
  last_text: string | null;
  last_is_read: number | null;
  last_source_id: number | null;
  last_created_at: number | null;
  unread: number | string | null;
};

export function toConversationListRow(row: ConversationListRowData, listing: Listing | undefined): ConversationListRow {
  const lastMessage =
    row.last_text === null
      ? null
      : {
          text: row.last_text,
          isRead: row.last_is_read !== 0,
          sourceId: Number(row.last_source_id),
          createdAt: Number(row.last_created_at),
        };
  return { conversation: toConversation(row), lastMessage, unreadCount: Number(row.unread ?? 0), listing };
}
