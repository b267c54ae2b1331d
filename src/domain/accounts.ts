/** Sign-in (docs/routes.md, "Sign-in"): a user named by login or e-mail, and their password. */
import type { User } from './model.js';
import type { AccountRepository } from './ports.js';

/** Verifies and makes password hashes (auth/passwords.ts), off the event loop. */
export interface PasswordHasher {
  /**
   * Whether the password matches; `rehash` is a newer form to store in place of the hash. `busy`:
   * too many verifications are waiting already, and this one was not made.
   */
  verify(password: string, passwordHash: string): Promise<{ ok: true; rehash?: string } | { ok: false; busy?: true }>;
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
export type SignInResult = { ok: true; user: User } | { ok: false; error: 'invalid_credentials' | 'busy' };

const REFUSED: SignInResult = { ok: false, error: 'invalid_credentials' };
const BUSY: SignInResult = { ok: false, error: 'busy' };

/** Signs a user in by login or e-mail (trimmed, either case). A matching hash of an old form is stored again in the current one. */
export async function signIn(deps: SignInDeps, username: string, password: string): Promise<SignInResult> {
  const identifier = username.trim();
  const found = identifier === '' ? undefined : await deps.accounts.findForSignIn(identifier);
  if (!found || found.user.disabled || found.passwordHash === '') {
    return (await deps.passwords.burn(password)) === 'busy' ? BUSY : REFUSED;
  }
  const check = await deps.passwords.verify(password, found.passwordHash);
  if (!check.ok) return check.busy ? BUSY : REFUSED;
  if (check.rehash !== undefined) await deps.accounts.setPasswordHash(found.user.id, check.rehash);
  return { ok: true, user: found.user };
}
