/** The marketplace's records as the use cases see them: no SQL, no HTTP. */
import type { Attachment, ImageObject, ListingContact, ListingStore, MessageAttachment, TermObject, UploadedAttachment } from './media.js';

export type { Attachment, ImageObject, ListingContact, ListingStore, MessageAttachment, TermObject, UploadedAttachment };

export const LISTING_STATUSES = ['publish', 'pending', 'draft', 'expired', 'trash'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

/** A listing a user can add to or remove from their favourites: one that exists, in any status but the trash. */
export const canBeFavourited = (status: ListingStatus | undefined): boolean => status !== undefined && status !== 'trash';

/** How a listing is priced: one price, a range (price to max price), or no price shown. */
export const PRICING_TYPES = ['price', 'range', 'disabled'] as const;
export type PricingType = (typeof PRICING_TYPES)[number];

export interface User {
  id: number;
  login: string;
  name: string;
  email: string;
  phone: string;
  whatsapp: string;
  website: string;
  profilePicture: string;
  disabled: boolean;
  firstName: string;
  lastName: string;
  description: string;
  isAdmin: boolean;
  address: string;
  zipcode: string;
  latitude: string;
  longitude: string;
  locations: TermObject[];
  /** When the account was made (ms), null when unknown (an import that did not say): new accounts get less of the abuse limits. */
  registeredAt: number | null;
}

/** A user as the import writes it: the profile, and a password hash when the import brings one. */
export interface UserRecord extends User {
  /** A hash in any form sign-in verifies; absent keeps the stored one. Never printed. */
  passwordHash?: string | undefined;
}

/** A listing as the import writes it. */
export interface ListingRecord {
  id: number;
  ownerId: number;
  title: string;
  slug: string;
  status: ListingStatus;
  /** The stored price string, e.g. "1200"; "" when there is none. */
  price: string;
  images: ImageObject[];
  category: TermObject[];
  location: TermObject[];
  details: ListingDetailsRecord;
}

/** What the favourites list shows of a listing beyond what the toggle and the chat read. */
export interface ListingDetailsRecord {
  pricingType: PricingType;
  /** The top of a range, a decimal string; "" when there is none. */
  maxPrice: string;
  priceType: string;
  priceUnits: string[];
  priceUnit: string;
  adType: string;
  tags: TermObject[];
  /** The listing's date (epoch ms); undefined keeps the stored one, or takes the import's time. */
  createdAt: number | undefined;
  viewCount: number;
  promotions: string[];
  badges: string[];
  contact: ListingContact;
  store: ListingStore | null;
}

/** The details of a listing the import says nothing more of: what the original shows for empty fields. */
export const DEFAULT_LISTING_DETAILS: Readonly<ListingDetailsRecord> = {
  pricingType: 'price',
  maxPrice: '',
  priceType: '',
  priceUnits: [],
  priceUnit: '',
  adType: '',
  tags: [],
  createdAt: undefined,
  viewCount: 0,
  promotions: [],
  badges: [],
  contact: {
    locations: [],
    latitude: '',
    longitude: '',
    hide_map: false,
    zipcode: '',
    address: '',
    phone: '',
    whatsapp_number: '',
    email: '',
    website: '',
    geo_address: '',
  },
  store: null,
};

/**
 * A listing's details as read back: the arrays and objects stay the JSON text the store keeps
 * (store/common/media-json.ts), which replies carry as they are.
 */
export interface ListingDetails extends Omit<
  ListingDetailsRecord,
  'priceUnits' | 'tags' | 'promotions' | 'badges' | 'contact' | 'createdAt'
> {
  createdAt: number;
  json: { priceUnits: string; tags: string; promotions: string; badges: string; contact: string };
}

/** A listing as the favourites list shows it. */
export interface ShownListing {
  listing: Listing;
  details: ListingDetails;
}

/**
 * A listing as read back. Only replies look inside its images and terms, so they stay the
 * interface's JSON text, as stored (store/common/media-json.ts): no parsing and re-serialising per reply.
 */
export interface Listing extends Omit<ListingRecord, 'images' | 'category' | 'location' | 'details'> {
  media: ListingMediaJson;
  /** The listing's price type (`fixed`, `negotiable`, ...; '' when it has none): the price markup names it (D7). */
  priceType: string;
}

/** The JSON arrays of a listing's images, categories and locations, exactly as replies carry them. */
export interface ListingMediaJson {
  images: string;
  category: string;
  location: string;
}

export interface Conversation {
  id: number;
  listingId: number;
  senderId: number;
  recipientId: number;
  senderDelete: boolean;
  recipientDelete: boolean;
  senderReview: boolean;
  recipientReview: boolean;
  invertReview: boolean;
  lastMessageId: number | null;
  createdAt: number;
  updatedAt: number;
}

/** `offer`: a price offered in the conversation (domain/chat/offer.ts), with its `offer`. */
export type MessageType = 'text' | 'attachment' | 'offer';

export const OFFER_STATUSES = ['pending', 'accepted', 'declined', 'countered'] as const;
/** Where an offer stands; a pending one whose `expiresAt` has passed can no longer be answered. */
export type OfferStatus = (typeof OFFER_STATUSES)[number];

/** Souk's own part of an offer message (its `meta.offer`), stored with the message. */
export interface Offer {
  /** A positive decimal string within the currency's decimals, e.g. "1150" or "1150.5". */
  amount: string;
  /** ISO 4217 code: the marketplace's currency. */
  currency: string;
  status: OfferStatus;
  /** The user who made it: the message's sender. */
  by: number;
  /** Epoch ms. */
  expiresAt: number;
}

export interface Message {
  id: number;
  conId: number;
  sourceId: number;
  text: string;
  type: MessageType;
  attachments: MessageAttachment[] | null;
  isRead: boolean;
  tempId: string | null;
  createdAt: number;
  /** A message of type `offer`: the offer; absent on every other. */
  offer?: Offer;
  /** When its sender last corrected its text (my/chat/message PATCH); absent when never. */
  editedAt?: number;
}

export interface NewMessage extends FirstMessage {
  conId: number;
}

/** A new message's own fields: a start's, before its conversation has an id. */
export interface FirstMessage {
  sourceId: number;
  text: string;
  type: MessageType;
  attachments: MessageAttachment[] | null;
  tempId: string | null;
  createdAt: number;
  /** A message of type `offer`: the offer it makes. */
  offer?: Offer;
}

/** A conversation's latest message, as a list of conversations shows it. */
export interface LastMessage {
  text: string;
  isRead: boolean;
  sourceId: number;
  createdAt: number;
}

/** A conversation in a participant's list, with what the list shows of its messages. */
export interface ConversationListRow {
  conversation: Conversation;
  /** Null only for a conversation without messages, which Souk never writes. */
  lastMessage: LastMessage | null;
  /** Messages the other participant sent that the list's reader has not read. */
  unreadCount: number;
  /** The conversation's listing; undefined once it is removed (its conversations stay). */
  listing: Listing | undefined;
}

/** Which participant a user is in a conversation. */
export type Side = 'sender' | 'recipient';
