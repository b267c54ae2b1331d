/**
 * Revoked tokens (auth/revoked-tokens.ts) on a real store: known at once where revoked, by another
 * instance after its next poll, and forgotten, in memory and in the database, once expired; at most
 * REVOCATIONS_PER_USER kept per user, the older ones given way to a mark (issue 26, finding 6).
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { REVOCATIONS_PER_USER, RevokedTokens } from '../../src/auth/revoked-tokens.js';
import { marketplaceStore } from '../helpers/marketplace-store.js';

const MAX_TTL_S = 30 * 86_400;
const token = (userId: number, digest: string, issuedAt: number, expiresAt: number) => ({ userId, digest, issuedAt, expiresAt });

it('a revocation holds here at once, on another instance after its poll, and is forgotten once its token expired', async (t) => {
  const store = await marketplaceStore(t);
  let now = 1_000_000_000_000;
  const clock = () => now;
  const here = new RevokedTokens(store.revocations, MAX_TTL_S, clock);
  const there = new RevokedTokens(store.revocations, MAX_TTL_S, clock);
  await there.refresh();
  const iat = now / 1000;
  const a = token(1, 'digest-a', iat, now + 60_000);
  const b = token(1, 'digest-b', iat, now + 600_000);

  await here.revoke(a);
  await here.revoke(b);
  assert.ok(here.has(a) && here.has(b));
  assert.ok(!there.has(a), 'not before its poll');
  await there.refresh();
  assert.ok(there.has(a) && there.has(b));
  assert.ok(!there.has(token(1, 'digest-c', iat, now + 60_000)));
  assert.ok(!there.has({ ...a, userId: 2 }), "another user's token of the same digest");

  now += 61_000;
  assert.ok(!here.has(a), 'an expired token needs no revocation');
  await there.refresh();
  assert.equal(there.size, 1);
  const rows = await store.db.selectFrom('revoked_tokens').select('digest').execute();
  assert.deepEqual(
    rows.map((r) => r.digest),
    ['digest-b'],
  );
  assert.ok(there.has(b));
});

it('revoking a token twice keeps one revocation', async (t) => {
  const store = await marketplaceStore(t);
  const revoked = new RevokedTokens(store.revocations, MAX_TTL_S);
  const x = token(1, 'digest-x', Math.floor(Date.now() / 1000), Date.now() + 60_000);
  await revoked.revoke(x);
  await revoked.revoke(x);
  assert.equal((await store.db.selectFrom('revoked_tokens').select('digest').execute()).length, 1);
});

it('keeps at most REVOCATIONS_PER_USER per user, here, in the database and on another instance, every revoked token still refused', async (t) => {
  const store = await marketplaceStore(t);
  let now = 1_000_000_000_000;
  const clock = () => now;
  const here = new RevokedTokens(store.revocations, MAX_TTL_S, clock);
  const there = new RevokedTokens(store.revocations, MAX_TTL_S, clock);
  const start = now / 1000;
  const signedOut = Array.from({ length: 200 }, (_, i) => token(1, `digest-${i}`, start + i, now + 3_600_000));
  for (const revoked of signedOut) {
    await here.revoke(revoked);
    now += 1;
  }
  await there.refresh();
  for (const instance of [here, there]) {
    assert.ok(instance.size <= REVOCATIONS_PER_USER + 1, `${instance.size} held`);
    for (const revoked of signedOut) assert.ok(instance.has(revoked), revoked.digest);
    // A token issued after the newest sign-out, and another user's, are let in.
    assert.ok(!instance.has(token(1, 'later', start + 200, now + 3_600_000)));
    assert.ok(!instance.has(token(2, 'digest-0', start, now + 3_600_000)));
  }
  const rows = await store.db.selectFrom('revoked_tokens').select('digest').execute();
  assert.ok(rows.length <= REVOCATIONS_PER_USER + 1, `${rows.length} rows`);
});
