/** The console's rules (domain/staff/): what each role may, a set-up link's life, a session's end, a reason's checks. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkedReason, shownText } from '../../src/domain/staff/console.js';
import { may, SESSION_MAX_MS, sessionHolds, SETUP_TTL_MS, setupState, type StaffMember } from '../../src/domain/staff/staff.js';

const member = (over: Partial<StaffMember> = {}): StaffMember => ({
  id: 1,
  email: 'ana@example.com',
  role: 'moderator',
  passwordHash: '$argon2id$x',
  totpSecret: 'SECRET',
  totpStep: 0,
  setupDigest: null,
  setupExpiresAt: null,
  credentialsAt: 1_000,
  createdAt: 1_000,
  ...over,
});

describe('the console staff rules', () => {
  it('grants each role its own: owner everything, moderator no administration, viewer reading without bodies', () => {
    assert.deepEqual(
      (['owner', 'moderator', 'viewer'] as const).map((role) =>
        (['read', 'read_bodies', 'moderate', 'administer'] as const).filter((p) => may(role, p)),
      ),
      [['read', 'read_bodies', 'moderate', 'administer'], ['read', 'read_bodies', 'moderate'], ['read']],
    );
    assert.equal(shownText('viewer', 'secret words'), null);
    assert.equal(shownText('moderator', 'secret words'), 'secret words');
  });

  it('keeps a set-up link a day', () => {
    const pending = member({ passwordHash: null, totpSecret: null, setupDigest: 'd', setupExpiresAt: 1_000 + SETUP_TTL_MS });
    assert.equal(setupState(pending, 1_000 + SETUP_TTL_MS - 1), 'valid');
    assert.equal(setupState(pending, 1_000 + SETUP_TTL_MS), 'expired');
    assert.equal(setupState(member(), 1_000), 'unknown', 'used');
    assert.equal(setupState(undefined, 1_000), 'unknown');
  });

  it('ends a session when idle too long, too old, older than the credentials, or the member is gone or not set up', () => {
    const idle = 900_000;
    const session = { staffId: 1, signedInAt: 2_000, lastSeenAt: 2_000 };
    assert.equal(sessionHolds(session, member(), 2_000 + idle, idle), true);
    assert.equal(sessionHolds(session, member(), 2_001 + idle, idle), false, 'idle');
    assert.equal(
      sessionHolds({ ...session, lastSeenAt: 2_000 + SESSION_MAX_MS }, member(), 2_001 + SESSION_MAX_MS, idle),
      false,
      'too old',
    );
    assert.equal(sessionHolds(session, member({ credentialsAt: 2_001 }), 2_100, idle), false, 'reset since');
    assert.equal(sessionHolds(session, member({ passwordHash: null }), 2_100, idle), false, 'not set up');
    assert.equal(sessionHolds(session, undefined, 2_100, idle), false, 'removed');
  });

  it('takes a reason of plain text, required, at most 1000 characters', () => {
    assert.deepEqual(checkedReason('  spam  '), { ok: true, reason: 'spam' });
    assert.deepEqual(checkedReason(' '), { ok: false, problem: 'reason is required' });
    assert.equal(checkedReason('x'.repeat(1001)).ok, false);
    assert.equal(checkedReason('a\u0000b').ok, false);
    assert.equal(checkedReason('a\ud800b').ok, false);
  });
});
