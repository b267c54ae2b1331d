/** privacy/user/block's reply: the blocked users as the plugin lists them (`Functions::getBlockedUserList`). */
import type { User } from '../../../domain/model.js';

export interface BlockedUserItem {
  id: number;
  /**
   * The user's display name, as their conversations show them (a Fix: the plugin gives the login,
   * and any id may be blocked, so it would hand every login out, half of what signing in needs).
   */
  name: string;
  /**
   * Always empty (a Fix): the plugin gives the blocked user's address, and any user may block any
   * id, so it would hand every address out. The key stays for the apps that read it.
   */
  email: '';
}

export const blockedUserItem = (user: User): BlockedUserItem => ({ id: user.id, name: user.name, email: '' });

export const blockedUserList = (users: User[]): BlockedUserItem[] => users.map(blockedUserItem);
