/**
 * Which form a stored password hash has (neighbours.md "Sign-in"). Only the forms the import brings
 * are recognised; anything else, an empty value included, is 'unsupported' and never matches.
 */

export type HashForm = 'wordpress' | 'bcrypt' | 'phpass' | 'argon2id' | 'unsupported';

/** What WordPress 6.8+ puts before a bcrypt hash of the pre-hashed password (wp_hash_password). */
export const WORDPRESS_PREFIX = '$wp';

/**
 * The bcrypt cost of the hashes Souk makes: PHP's password_hash() default before 8.4, and what
 * WordPress's own hashes carry ($wp$2y$10$). A verification at it is the reference every refused
 * sign-in costs at least (passwords.ts).
 */
export const OWN_COST = 10;

// bcrypt's modular crypt form: revision, two-digit cost, 22 characters of salt and 31 of digest.
const BCRYPT = /^\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}$/;
// phpass portable hashes: WordPress's $P$ and phpBB's $H$ (the same algorithm), 34 characters.
const PHPASS = /^\$[PH]\$[./0-9A-Za-z]{31}$/;
// Only the prefix: the library parses the PHC string itself and rejects what it cannot read.
const ARGON2ID = /^\$argon2id\$/;

export function hashForm(stored: string): HashForm {
  if (stored.startsWith(WORDPRESS_PREFIX)) return BCRYPT.test(stored.slice(WORDPRESS_PREFIX.length)) ? 'wordpress' : 'unsupported';
  if (BCRYPT.test(stored)) return 'bcrypt';
  if (PHPASS.test(stored)) return 'phpass';
  if (ARGON2ID.test(stored)) return 'argon2id';
  return 'unsupported';
}

/** The cost (log2 of the rounds) of a bcrypt hash, plain or in WordPress's form; undefined for other forms. */
export function bcryptCost(stored: string): number | undefined {
  const form = hashForm(stored);
  if (form !== 'bcrypt' && form !== 'wordpress') return undefined;
  const bare = form === 'wordpress' ? stored.slice(WORDPRESS_PREFIX.length) : stored;
  return Number(bare.slice(4, 6));
}
