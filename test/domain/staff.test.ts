/**
 * The console's rules (domain/staff/): what each role may, a set-up link's life, a session's end, a
 * reason's checks, and the overview's "today" in the staff member's zone. No database: run once.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkedReason, shownText } from '../../src/domain/staff/console.js';
import { knownZone, startOfDay } from '../../src/domain/staff/reads.js';
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

  it("starts the overview's today at the staff member's midnight, clock changes included", () => {
    const day = (at: string, zone: string) => new Date(startOfDay(Date.parse(at), zone)).toISOString();
    assert.equal(day('2026-12-02T13:00:00Z', 'UTC'), '2026-12-02T00:00:00.000Z');
    // Already the 3rd in India (UTC+5:30), still the 1st in American Samoa (UTC-11).
    assert.equal(day('2026-12-02T20:00:00Z', 'Asia/Kolkata'), '2026-12-02T18:30:00.000Z');
    assert.equal(day('2026-12-02T09:00:00Z', 'Pacific/Pago_Pago'), '2026-12-01T11:00:00.000Z');
    // New York's clocks go forward at 02:00 on 8 March and back on 1 November: midnight is the
    // day before's offset (EST, then EDT).
    assert.equal(day('2026-03-08T12:00:00Z', 'America/New_York'), '2026-03-08T05:00:00.000Z');
    assert.equal(day('2026-11-01T15:00:00Z', 'America/New_York'), '2026-11-01T04:00:00.000Z');
    // Chile's go forward at midnight on 6 September 2026: that day starts at 01:00 (-03).
    assert.equal(day('2026-09-06T15:00:00Z', 'America/Santiago'), '2026-09-06T04:00:00.000Z');
  });

  it('takes a zone the runtime knows, as it spells it, and UTC for anything else a browser sends', () => {
    assert.deepEqual(
      ['Europe/Paris', 'europe/paris', 'Asia/Calcutta', 'Mars/Olympus', '', '__proto__', 'Europe/'.repeat(10), undefined].map(knownZone),
      ['Europe/Paris', 'Europe/Paris', 'Asia/Calcutta', 'UTC', 'UTC', 'UTC', 'UTC', 'UTC'],
    );
  });
});
