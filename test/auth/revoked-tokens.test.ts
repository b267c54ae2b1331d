/**
 * Revoked tokens (auth/revoked-tokens.ts) on a real store: known at once where revoked, by another
 * instance after its next poll, and forgotten, in memory and in the database, once expired.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { RevokedTokens } from '../../src/auth/revoked-tokens.js';
import { marketplaceStore } from '../helpers/marketplace-store.js';

it('a revocation holds here at once, on another instance after its poll, and is forgotten once its token expired', async (t) => {
  const store = await marketplaceStore(t);
  let now = 1_000_000_000_000;
  const clock = () => now;
  const here = new RevokedTokens(store.revocations, clock);
  const there = new RevokedTokens(store.revocations, clock);
  await there.refresh();

  await here.revoke('digest-a', now + 60_000);
  await here.revoke('digest-b', now + 600_000);
  assert.ok(here.has('digest-a') && here.has('digest-b'));
  assert.ok(!there.has('digest-a'), 'not before its poll');
  await there.refresh();
  assert.ok(there.has('digest-a') && there.has('digest-b'));
  assert.ok(!there.has('digest-c'));

  now += 61_000;
  assert.ok(!here.has('digest-a'), 'an expired token needs no revocation');
  await there.refresh();
  assert.equal(there.size, 1);
  const rows = await store.db.selectFrom('revoked_tokens').select('digest').execute();
  assert.deepEqual(
    rows.map((r) => r.digest),
    ['digest-b'],
  );
  assert.ok(there.has('digest-b'));
});

it('revoking a token twice keeps one revocation', async (t) => {
  const store = await marketplaceStore(t);
  const revoked = new RevokedTokens(store.revocations);
  await revoked.revoke('digest-x', Date.now() + 60_000);
  await revoked.revoke('digest-x', Date.now() + 60_000);
  assert.equal((await store.db.selectFrom('revoked_tokens').select('digest').execute()).length, 1);
});
