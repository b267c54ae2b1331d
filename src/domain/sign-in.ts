/** Sign-in (docs/routes.md, "Sign-in"): a user named by login or e-mail, and their password. */
import { LONE_SURROGATE } from './chat/common.js';
import type { User } from './model.js';
import type { AccountRepository } from './ports.js';

/** Verifies and makes password hashes (auth/passwords.ts), off the event loop. */
export interface PasswordHasher {
  /**
   * Whether the password matches; `rehash` is a newer form to store in place of the hash. `busy`:
   * too many verifications are waiting already, and this one was not made. `tooDear`: the hash
   * costs more than is ever verified (an import let it in), so it was not verified.
   */
  verify(password: string, passwordHash: string): Promise<{ ok: true; rehash?: string } | { ok: false; busy?: true; tooDear?: true }>;
  /** Costs what one verification costs, and proves nothing: unknown users take as long as known ones. */
  burn(password: string): Promise<'done' | 'busy'>;
}

export interface SignInDeps {
  accounts: AccountRepository;
  passwords: PasswordHasher;
}

/**
 * One answer for every refusal: an unknown user, a wrong password, a disabled user, no password.
 * `busy`: the password could not be checked now (too many sign-ins waiting); nothing was decided.
 */
export type SignInResult =
  | { ok: true; user: User }
  | { ok: false; error: 'invalid_credentials' | 'busy'; /** The user whose stored hash was too dear to verify. */ tooDearHashOf?: number };

/**
 * A sign-in's place in the throttles' budgets, taken before its password is checked so that
 * attempts made at once cannot all pass a check made before any of them was counted. A refusal
 * keeps it (a failure counted); the other outcomes say so here.
 */
export interface SignInAttempt {
  /** The right password. */
  succeeded(): Promise<void>;
  /** Nothing was decided (busy): the attempt is given back. */
  undecided(): Promise<void>;
}

/**
 * Takes an attempt from the budgets of `subject` (the account, or the name when none has it),
 * or throws when they are spent (the throttles' error, passed on as it is).
 */
export type AdmitSignIn = (subject: string) => Promise<SignInAttempt>;

const REFUSED: SignInResult = { ok: false, error: 'invalid_credentials' };
const BUSY: SignInResult = { ok: false, error: 'busy' };

/**
 * What no login or e-mail holds, and a database may not compare as written (PostgreSQL fails on a
 * NUL; MariaDB's collations ignore it, so `ali\0ce` found alice): such a name is nobody's, and is
 * refused as an unknown one, counted like any.
 */
const unmatchable = (identifier: string) => identifier.includes('\0') || LONE_SURROGATE.test(identifier);

/**
 * The name's budget key when no account has it: the spellings a database's collation takes for one
 * name (case, accents) share it, so they cannot each get a budget of their own.
 */
export const foldedName = (identifier: string) => identifier.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();

/** The throttles' subject of a sign-in: the account found, else the name as the collation reads it. */
const subjectOf = (identifier: string, found: { user: User } | undefined) =>
  found ? `account:${found.user.id}` : `name:${foldedName(identifier)}`;

/**
 * Signs a user in by login or e-mail (trimmed, either case). A matching hash of an old form is stored
 * again in the current one. `admit` is asked once the account is known and before the password is checked.
 */
export async function signIn(deps: SignInDeps, username: string, password: string, admit: AdmitSignIn): Promise<SignInResult> {
  const identifier = username.trim();
  const found = identifier === '' || unmatchable(identifier) ? undefined : await deps.accounts.findForSignIn(identifier);
  const attempt = await admit(subjectOf(identifier, found));
  const result = await checkPassword(deps, found, password);
  if (result.ok) await attempt.succeeded();
  else if (result.error === 'busy') await attempt.undecided();
  return result;
}

async function checkPassword(
  deps: SignInDeps,
  found: { user: User; passwordHash: string } | undefined,
  password: string,
): Promise<SignInResult> {
  if (!found || found.user.disabled || found.passwordHash === '') {
    return (await deps.passwords.burn(password)) === 'busy' ? BUSY : REFUSED;
  }
  const check = await deps.passwords.verify(password, found.passwordHash);
  if (!check.ok && check.tooDear) return { ok: false, error: 'invalid_credentials', tooDearHashOf: found.user.id };
  if (!check.ok) return check.busy ? BUSY : REFUSED;
  if (check.rehash !== undefined) await deps.accounts.setPasswordHash(found.user.id, check.rehash);
  return { ok: true, user: found.user };
}
