/** The marketplace's records as the use cases see them: no SQL, no HTTP. */
import type { Attachment, ImageObject, TermObject } from './media.js';

export type { Attachment, ImageObject, TermObject };

export const LISTING_STATUSES = ['publish', 'pending', 'draft', 'expired', 'trash'] as const;
export type ListingStatus = (typeof LISTING_STATUSES)[number];

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
}

/**
 * A listing as read back. Only replies look inside its images and terms, so they stay the
 * interface's JSON text, as stored (store/shared/media-json.ts): no parsing and re-serialising per reply.
 */
export interface Listing extends Omit<ListingRecord, 'images' | 'category' | 'location'> {
  media: ListingMediaJson;
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

export type MessageType = 'text' | 'attachment';

export interface Message {
  id: number;
  conId: number;
  sourceId: number;
  text: string;
  type: MessageType;
  attachments: Attachment[] | null;
  isRead: boolean;
  tempId: string | null;
  createdAt: number;
}

export interface NewMessage {
  conId: number;
  sourceId: number;
  text: string;
  type: MessageType;
  attachments: Attachment[] | null;
  tempId: string | null;
  createdAt: number;
}
