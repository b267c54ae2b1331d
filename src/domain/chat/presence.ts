/**
 * GET my/chat/presence (issue 50): whether the users the caller chats with are online, and when
 * they were last seen, rounded down to LAST_SEEN_STEP_MS. Only users who share a conversation with
 * the caller are answered for (the others are left out, as are a disabled user and one with a
 * block between the two, either way); a user who hid their presence shows offline, never seen.
 * Nothing is written: presence is what every authenticated request already records
 * (events/presence.ts), shared by the instances through the store.
 */
import type { PresenceRepository, MailPreferenceRepository } from '../mail.js';
import type { User } from '../model.js';
import type { Repositories } from '../ports.js';

/** Most users one request asks about. */
export const PRESENCE_USERS_MAX = 100;
export const LAST_SEEN_STEP_MS = 300_000;

/** What this instance, and the store behind it, know of a user's presence. */
export interface PresenceStatus {
  status(userId: number, now: number): Promise<{ online: boolean; lastSeen: number | undefined }>;
}

export interface ChatPresenceDeps {
  repos: Pick<Repositories, 'blocks'>;
  findUser: (id: number) => Promise<User | undefined>;
  partners: Pick<PresenceRepository, 'chatPartners'>;
  preferences: Pick<MailPreferenceRepository, 'hidingPresence'>;
  presence: PresenceStatus;
}

export interface PresenceEntry {
  userId: number;
  online: boolean;
  /** Epoch ms, a multiple of LAST_SEEN_STEP_MS; null when never seen or hidden. */
  lastSeen: number | null;
}

/** The presence of those of `userIds` the caller may see, in the order asked, each once. */
export async function chatPresence(deps: ChatPresenceDeps, callerId: number, userIds: number[], now: number): Promise<PresenceEntry[]> {
  const asked = [...new Set(userIds)].filter((id) => id !== callerId);
  const partners = new Set(await deps.partners.chatPartners(callerId, asked));
  const shown = await Promise.all(
    asked
      .filter((id) => partners.has(id))
      .map(async (id) => {
        const user = await deps.findUser(id);
        if (!user || user.disabled || (await deps.repos.blocks.between(callerId, id))) return undefined;
        return id;
      }),
  );
  const visible = shown.filter((id): id is number => id !== undefined);
  const hidden = await deps.preferences.hidingPresence(visible);
  return Promise.all(
    visible.map(async (userId): Promise<PresenceEntry> => {
      if (hidden.has(userId)) return { userId, online: false, lastSeen: null };
      const { online, lastSeen } = await deps.presence.status(userId, now);
      return { userId, online, lastSeen: lastSeen === undefined ? null : lastSeen - (lastSeen % LAST_SEEN_STEP_MS) };
    }),
  );
}
