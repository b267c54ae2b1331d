/** The console's staff on a WordPress site's database (MariaDB): Souk's own `{prefix}souk_staff`, every method of the port. */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { startTestSouk } from '../../helpers/souk.js';
import { mysqlReachable, wordpressDatabase } from '../../helpers/wordpress.js';

const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

describe("the staff on a WordPress site's database", { skip }, () => {
  it('adds, finds, sets up, takes TOTP steps once, resets and removes a member', async () => {
    const site = await wordpressDatabase();
    const t = await startTestSouk({ DATABASE_URL: site.url }, null);
    const staff = t.souk.store.staff;
    const digest = 'a'.repeat(64);
    assert.equal(
      await staff.add({ email: 'ana@example.com', role: 'moderator', setupDigest: digest, setupExpiresAt: 2000, at: 1000 }),
      true,
    );
    assert.equal(
      await staff.add({ email: 'ana@example.com', role: 'owner', setupDigest: 'b'.repeat(64), setupExpiresAt: 2000, at: 1000 }),
      false,
    );
    const added = await staff.findBySetupDigest(digest);
    assert.deepEqual(added, {
      id: added!.id,
      email: 'ana@example.com',
      role: 'moderator',
      passwordHash: null,
      totpSecret: null,
      totpStep: 0,
      setupDigest: digest,
      setupExpiresAt: 2000,
      credentialsAt: 1000,
      createdAt: 1000,
    });
    assert.equal(await staff.completeSetup(added!.id, digest, '$argon2id$x', 'SECRET', 2000), false, 'expired');
    assert.equal(await staff.completeSetup(added!.id, digest, '$argon2id$x', 'SECRET', 1500), true);
    assert.equal(await staff.completeSetup(added!.id, digest, '$argon2id$y', 'OTHER', 1500), false, 'used up');
    const set = await staff.findById(added!.id);
    assert.deepEqual([set!.passwordHash, set!.totpSecret, set!.setupDigest, set!.credentialsAt], ['$argon2id$x', 'SECRET', null, 1500]);
    assert.equal(await staff.takeTotpStep(added!.id, 7), true);
    assert.equal(await staff.takeTotpStep(added!.id, 7), false, 'a step once');
    assert.equal(await staff.reset('ana@example.com', 'c'.repeat(64), 9000, 3000), true);
    assert.equal((await staff.findByEmail('ana@example.com'))!.passwordHash, null);
    assert.deepEqual(
      (await staff.list()).map((m) => m.email),
      ['ana@example.com'],
    );
    assert.equal(await staff.remove('ana@example.com'), true);
    assert.equal(await staff.remove('ana@example.com'), false);
    assert.equal(await staff.findById(added!.id), undefined);
  });
});
