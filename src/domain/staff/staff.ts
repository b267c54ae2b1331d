/**
 * The console's staff (docs/console.md): who may sign in to /console, with which role, and the
 * rules that hold whatever door asks (the CLI's `souk staff ...`, the console's pages). A member is
 * added with a one-time set-up link; only a digest of its token is kept. Sign-in takes a password
 * and a TOTP code: neither is optional.
 */

export const STAFF_ROLES = ['owner', 'moderator', 'viewer'] as const;
export type StaffRole = (typeof STAFF_ROLES)[number];

export const isStaffRole = (value: string): value is StaffRole => (STAFF_ROLES as readonly string[]).includes(value);

/** A set-up link is good for a day. */
export const SETUP_TTL_MS = 86_400_000;

/** An e-mail as the console takes it: one @, no spaces, at most 254 characters. */
export const STAFF_EMAIL = /^[^\s@]{1,64}@[^\s@]{1,189}$/;

/** Normalised: the console matches e-mails case-insensitively. */
export const staffEmail = (email: string) => email.trim().toLowerCase();

export interface StaffMember {
  id: number;
  email: string;
  role: StaffRole;
  /** Null until the set-up link was used (and again after a reset). */
  passwordHash: string | null;
  totpSecret: string | null;
  /** The TOTP time step last accepted: a code is taken once. */
  totpStep: number;
  /** The digest of the pending set-up token, and when it expires; null once used. */
  setupDigest: string | null;
  setupExpiresAt: number | null;
  /** When the credentials last changed: a session from before is over. */
  credentialsAt: number;
  createdAt: number;
}

export const isSetUp = (m: StaffMember) => m.passwordHash !== null && m.totpSecret !== null;

/**
 * A WordPress site's administrator signs in with the site's password (checked against the site's
 * own hash at each sign-in) and Souk's TOTP: their row holds this in place of a password hash, which
 * no password matches as a Souk password.
 */
export const SITE_PASSWORD = 'wordpress-site';

export const isSiteAdmin = (m: StaffMember) => m.passwordHash === SITE_PASSWORD;

/** What lets a WordPress site's user into the console: the Classified Listing plugin's settings capability. */
export const SITE_ADMIN_CAPABILITY = 'manage_rtcl_options';

/** A site administrator as the console finds them: holding SITE_ADMIN_CAPABILITY, not disabled. */
export interface SiteAdmin {
  email: string;
  login: string;
  passwordHash: string;
}

/** How long a site administrator has, after their password was taken, to enrol TOTP. */
export const ENROL_TTL_MS = 10 * 60_000;

/** What the console lets a role do. */
export type ConsolePermission =
  /** The pages, read-only. */
  | 'read'
  /** Message bodies (a viewer sees that a message exists, not what it says). */
  | 'read_bodies'
  /** Reports, users, conversations, deletes. */
  | 'moderate'
  /** Staff and settings. */
  | 'administer';

const GRANTS: Record<StaffRole, readonly ConsolePermission[]> = {
  owner: ['read', 'read_bodies', 'moderate', 'administer'],
  moderator: ['read', 'read_bodies', 'moderate'],
  viewer: ['read'],
};

export const may = (role: StaffRole, permission: ConsolePermission): boolean => GRANTS[role].includes(permission);

/** Where a set-up token stands. */
export function setupState(member: StaffMember | undefined, now: number): 'valid' | 'expired' | 'unknown' {
  if (!member || member.setupDigest === null || member.setupExpiresAt === null) return 'unknown';
  return member.setupExpiresAt > now ? 'valid' : 'expired';
}

/** A console session: who, since when, last seen. */
export interface StaffSession {
  staffId: number;
  signedInAt: number;
  lastSeenAt: number;
}

/** The longest a session lives, however active. */
export const SESSION_MAX_MS = 12 * 3_600_000;

/** Whether the session still holds: not idle too long, not too old, not older than the member's credentials. */
export function sessionHolds(session: StaffSession, member: StaffMember | undefined, now: number, idleMs: number): boolean {
  if (!member || !isSetUp(member)) return false;
  if (session.signedInAt < member.credentialsAt) return false;
  if (now - session.lastSeenAt > idleMs) return false;
  return now - session.signedInAt <= SESSION_MAX_MS;
}

/** The shortest password the set-up page takes. */
export const STAFF_PASSWORD_MIN = 12;

export interface NewStaff {
  email: string;
  role: StaffRole;
  setupDigest: string;
  setupExpiresAt: number;
  at: number;
}

/** Where the staff are kept (store/common/staff.ts, store/mysql/staff.ts). */
export interface StaffRepository {
  /** False when a member has this e-mail already. */
  add(member: NewStaff): Promise<boolean>;
  list(): Promise<StaffMember[]>;
  findById(id: number): Promise<StaffMember | undefined>;
  findByEmail(email: string): Promise<StaffMember | undefined>;
  findBySetupDigest(digest: string): Promise<StaffMember | undefined>;
  remove(email: string): Promise<boolean>;
  /** Forgets the password and TOTP secret, sets a new set-up token; false when no such member. */
  reset(email: string, setupDigest: string, setupExpiresAt: number, at: number): Promise<boolean>;
  /** Uses the set-up token (when still valid at `at`): the password and TOTP secret are set; false when it was not. */
  completeSetup(id: number, setupDigest: string, passwordHash: string, totpSecret: string, at: number): Promise<boolean>;
  /** Takes TOTP step `step` for the member when it is later than the last taken; false when it was not. */
  takeTotpStep(id: number, step: number): Promise<boolean>;
}
