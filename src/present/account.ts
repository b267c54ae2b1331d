/** The user object (docs/routes.md N4) and the sign-in reply. */
import type { User } from '../domain/model.js';
import { gravatarHash } from './user.js';
import type { SignInReply, UserObject } from './wire-schemas.js';

/** The picture WordPress's REST user shows for a user without one of their own. */
const thumbnailUrl = (user: User) => user.profilePicture || `https://gravatar.com/avatar/${gravatarHash(user.email)}?s=80&d=mm`;

export function userObject(user: User): UserObject {
  return {
    first_name: user.firstName,
    last_name: user.lastName,
    description: user.description,
    id: user.id,
    isAdmin: user.isAdmin,
    email: user.email,
    username: user.login,
    phone: user.phone,
    whatsapp_number: user.whatsapp,
    website: user.website,
    locations: user.locations,
    zipcode: user.zipcode,
    address: user.address,
    latitude: user.latitude,
    longitude: user.longitude,
    pp_thumb_url: thumbnailUrl(user),
  };
}

const objectTexts = new WeakMap<User, string>();

/**
 * The user object as JSON text, written once per user object (the user cache hands out the same
 * one until the catalog changes): a favourites page carries one per listing, each with its MD5.
 */
export function userObjectJson(user: User): string {
  let json = objectTexts.get(user);
  if (json === undefined) objectTexts.set(user, (json = JSON.stringify(userObject(user))));
  return json;
}

/** A signed token as sign-in hands it out: its text, and its issue and expiry times in seconds. */
export interface SessionToken {
  token: string;
  iat: number;
  exp: number;
}

export function signInReply(user: User, session: SessionToken): SignInReply {
  return { token_type: 'Bearer', iat: session.iat, expires_in: session.exp, jwt_token: session.token, user: userObject(user) };
}
