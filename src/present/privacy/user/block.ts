/** privacy/user/block's reply: the blocked users as the plugin lists them (`Functions::getBlockedUserList`). */
import type { User } from '../../../domain/model.js';

export interface BlockedUserItem {
  id: number;
  /** The user's login, as the plugin names them here. */
  name: string;
  email: string;
}

export const blockedUserItem = (user: User): BlockedUserItem => ({ id: user.id, name: user.login, email: user.email });

export const blockedUserList = (users: User[]): BlockedUserItem[] => users.map(blockedUserItem);
