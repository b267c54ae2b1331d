/**
 * Which form a stored password hash has (docs/routes.md "Sign-in"). Only the forms the import brings
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

/**
 * The dearest hashes verified (HASH_BOUNDS in docs/hardening.md): beyond them one sign-in would hold
 * a password thread for seconds to hours (bcrypt 31: 2^31 rounds), so an import refuses them and a
 * sign-in refuses them as a wrong password. bcrypt's 14 is 16 times WordPress's 10; argon2's memory
 * is in KiB (256 MiB), past what PHP's strongest presets use; phpass's 2^13 rounds are WordPress's own.
 */
export const HASH_BOUNDS = { bcryptCost: 14, argon2MemoryKiB: 262_144, argon2Time: 10, argon2Lanes: 16, phpassLog2: 13 } as const;

const ITOA64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ARGON2_PARAMS = /^\$argon2id\$v=\d+\$m=(\d{1,10}),t=(\d{1,10}),p=(\d{1,10})\$/;

/** Why verifying `stored` would cost more than HASH_BOUNDS allow; undefined when it is within them. */
export function dearHashProblem(stored: string): string | undefined {
  const b = HASH_BOUNDS;
  const cost = bcryptCost(stored);
  if (cost !== undefined) return cost > b.bcryptCost ? `bcrypt cost ${cost} is above ${b.bcryptCost}` : undefined;
  switch (hashForm(stored)) {
    case 'phpass': {
      const log2 = ITOA64.indexOf(stored[3]!);
      return log2 > b.phpassLog2 ? `phpass 2^${log2} rounds are above 2^${b.phpassLog2}` : undefined;
    }
    case 'argon2id': {
      const params = ARGON2_PARAMS.exec(stored);
      if (!params) return 'argon2id parameters that cannot be read (m=, t=, p=)';
      const [m, t, p] = params.slice(1).map(Number) as [number, number, number];
      if (m > b.argon2MemoryKiB) return `argon2id memory ${m} KiB is above ${b.argon2MemoryKiB} KiB (256 MiB)`;
      if (t > b.argon2Time) return `argon2id time cost ${t} is above ${b.argon2Time}`;
      return p > b.argon2Lanes ? `argon2id parallelism ${p} is above ${b.argon2Lanes}` : undefined;
    }
    default:
      return undefined;
  }
}
