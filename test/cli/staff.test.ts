/**
 * `souk staff add|list|reset|remove` (docs/console.md): the set-up link printed once under
 * CONSOLE_URL, only its digest stored; a reset replacing it; the removal; each audited as the CLI's.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { setupDigest } from '../../src/auth/staff.js';
import { openStore } from '../../src/store/index.js';
import { freshDatabase } from '../helpers/database.js';
import { ok, scratch, souk } from '../helpers/cli.js';

const LINK = /^https:\/\/console\.example\.com\/console\/setup\/([A-Za-z0-9_-]{43})\n$/;

describe('souk staff', () => {
  it('adds a member with a one-time link, lists, resets and removes them, each audited', async (t) => {
    const { db } = scratch(t);
    const database = await freshDatabase();
    t.after(() => database.drop());
    const env = { DATABASE_URL: database.url, CONSOLE_URL: 'https://console.example.com/console/' };
    const added = await souk(db, ['staff', 'add', 'Ana@Example.com', '--role', 'moderator'], { env });
    assert.equal(added.code, 0, added.stderr);
    const token = LINK.exec(added.stdout)?.[1];
    assert.ok(token, added.stdout);
    assert.match(added.stderr, /^set-up link printed once; it expires \d{4}-\d\d-\d\dT[\d:.]+Z/);
    assert.match(
      await ok(db, ['staff', 'list'], { env }),
      /^email\trole\tstate\tadded\nana@example\.com\tmoderator\tset-up link pending\t\d{4}-/,
    );
    const reset = await souk(db, ['staff', 'reset', 'ana@example.com'], { env });
    const second = LINK.exec(reset.stdout)?.[1];
    assert.ok(second && second !== token, reset.stdout);
    const store = openStore(database.url, { poolSize: 1, statementTimeoutMs: 5000, connectTimeoutMs: 5000 });
    try {
      const member = await store.staff.findByEmail('ana@example.com');
      assert.equal(member!.setupDigest, setupDigest(second));
      assert.equal(await store.staff.findBySetupDigest(setupDigest(token)), undefined);
      const removed = await souk(db, ['staff', 'remove', 'ana@example.com'], { env });
      assert.equal(removed.stdout, 'staff member ana@example.com removed: their session ends at their next request\n');
      assert.equal(await store.staff.findByEmail('ana@example.com'), undefined);
      const rows = await store.audit.list({ limit: 10 });
      assert.deepEqual(
        rows.map((r) => [r.actor.name, r.action, r.targetKind, r.targetId, r.details]),
        [
          ['cli', 'staff.remove', 'staff', member!.id, null],
          ['cli', 'staff.reset', 'staff', member!.id, null],
          ['cli', 'staff.add', 'staff', member!.id, { role: 'moderator' }],
        ],
      );
    } finally {
      await store.close();
    }
  });
});
