/** Builds the interface's user summary (D8). */
import { createHash } from 'node:crypto';
import type { User } from '../domain/model.js';
import type { UserSummary } from './wire-schemas.js';

/** Gravatar's name for an e-mail address: the MD5 of it trimmed and lower-cased. */
export const gravatarHash = (email: string): string => createHash('md5').update(email.trim().toLowerCase()).digest('hex');

/** The Gravatar address WordPress shows for a user without a picture. */
export function gravatarUrl(email: string): string {
  return `https://secure.gravatar.com/avatar/${gravatarHash(email)}?s=96&d=mm&r=g`;
}

// The user cache (auth/user-cache.ts) hands out the same User object until the catalog changes,
// so its summary, with the Gravatar hash, is built once per object.
const summaries = new WeakMap<User, UserSummary>();

export function userSummary(user: User): UserSummary {
  let summary = summaries.get(user);
  if (!summary) summaries.set(user, (summary = buildUserSummary(user)));
  return summary;
}

const summaryTexts = new WeakMap<User, string>();

/** The summary as JSON text, written once per user object: a chat list carries two per conversation. */
export function userSummaryJson(user: User): string {
  let json = summaryTexts.get(user);
  if (json === undefined) summaryTexts.set(user, (json = JSON.stringify(userSummary(user))));
  return json;
}

function buildUserSummary(user: User): UserSummary {
  return {
    id: user.id,
    // WordPress shows the login when a user has no display name.
    name: user.name || user.login,
    email: user.email,
    phone: user.phone,
    whatsapp: user.whatsapp,
    website: user.website,
    profile_picture: user.profilePicture || gravatarUrl(user.email),
  };
}
