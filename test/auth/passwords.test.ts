/**
 * Sign-in passwords (docs/routes.md "Sign-in"). Every stored form the import brings verifies with real
 * vectors: WordPress's own seeded hashes with the passwords its recorded logins used, and published
 * reference vectors for phpass, bcrypt and argon2id. Wrong passwords and bad hashes answer false without
 * throwing; a phpass match comes with its WordPress 6.8+ replacement; new passwords get that form.
 * No timing is asserted here: speed is the benchmarks' business.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { burnVerification, hashPassword, MAX_PASSWORD_BYTES, verifyPassword } from '../../src/auth/passwords.js';

type Vector = { password: string; hash: string };

/**
 * The seeded WordPress users of test/fixtures/original/wordpress-seeded.sql (wp_users, lines 1014-1016)
 * and original-2x/wordpress-seeded.sql (lines 1261-1263), each with the password its user signed in
 * with, answered 200, in 01-login.txt: [004] alice, [005] bob, [006] carol by e-mail.
 */
const WORDPRESS: Vector[] = [
  { password: 'alice-pass-123', hash: '$wp$2y$10$lri.9y2Sj3KJYPnRzfLDgepshT1ANxpqPBrX3eQ7wAuJ2Al17H/Yi' },
  { password: 'bob-pass-123', hash: '$wp$2y$10$A1UDBlhTA8D3cpAdmjiMaeBQp2qGUEXqn3iF8YEGUn/41CdyarShW' },
  { password: 'carol-pass-123', hash: '$wp$2y$10$Pj6Hb2.t2IevUkRci4F42e6mS8HwYn5GGPhgD6pq5x5pOWDCmUwQu' },
  { password: 'alice-pass-123', hash: '$wp$2y$10$pX6ir/Vx0pADCOLNkNM7Be700uPn4LyMzeiwFHaPH8KmxclaahR0a' },
  { password: 'bob-pass-123', hash: '$wp$2y$10$525P0oUyIuDg0cU/UJgeheFnA/Km.To4bjU0z6fVGPYySDagO8eCi' },
  { password: 'carol-pass-123', hash: '$wp$2y$10$rfOyDZhAmLr0HLc7xzG7d./3FyjVIMUnmpySrfQDwNQa.TzeB25Gm' },
  // Made by PHP 8.2.36 with WordPress 6.8's wp_hash_password() steps ('$wp' . password_hash(base64 HMAC-SHA384)).
  { password: 'ключ🔑 pässwörd', hash: '$wp$2y$10$CDKXpMa5iYDG9aMOdSg9Y.1UscenSzabD3EWsANOVzDsH7NxxdKQO' },
];

const PHPASS: Vector[] = [
  // Openwall phpass 0.3 test.php: "A correct portable hash for 'test12345'".
  { password: 'test12345', hash: '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0' },
  // passlib's phpass test vectors (passlib/tests/test_handlers.py), $H$ (phpBB) and non-ASCII among them.
  { password: 'test1', hash: '$H$9aaaaaSXBjgypwqm.JsMssPLiS8YQ00' },
  { password: '123456', hash: '$H$9PE8jEklgZhgLmZl5.HYJAzfGCQtzi1' },
  { password: 'thisisalongertestPW', hash: '$P$912345678LIjjb6PhecupozNBmDndU0' },
  { password: 'JohnRipper', hash: '$P$612345678si5M0DDyPpmRCmcltU/YW/' },
  { password: '', hash: '$P$7JaFQsPzJSuenezefD/3jHgt5hVfNH0' },
  { password: 't\u00e1\u0411\u2113\u0259', hash: '$P$7SMy8VxnfsIy2Sxm7fJxDSdil.h7TW.' },
  // WordPress-made ($P$B: 8192 rounds): node-phpass's README, and CraftFire Commons' Polish-letters test.
  { password: '123456', hash: '$P$BVaXtDXwf/ceSVp8VpLKx8bS2Y4O5F/' },
  { password: 'ąćęłóńśźż', hash: '$P$ByXWbzDvVAJ0jxvNp5sv4xYPIRXJJ1.' },
];

const BCRYPT: Vector[] = [
  // PHP manual, password_verify() and password_hash() examples.
  { password: 'rasmuslerdorf', hash: '$2y$07$BCryptRequires22Chrcte/VlQH0piJtjXl.0t1XkA8pw9dMXTpOq' },
  { password: 'rasmuslerdorf', hash: '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a' },
  // rust-bcrypt's tests: made by Python's bcrypt ($2b$) and by an online tool ($2a$).
  { password: 'correctbatteryhorsestapler', hash: '$2b$04$EGdrhbKUv8Oc9vGiXX0HQOxSg445d458Muh7DAHskb6QbtCvdxcie' },
  { password: 'password', hash: '$2a$04$UuTkLRZZ6QofpDOlMz32MuuxEHA43WOemOYHPz6.SjsVsyO1tDU96' },
  // Made by PHP 8.2.36's password_hash(PASSWORD_BCRYPT).
  { password: 'ключ🔑 pässwörd', hash: '$2y$10$bTgn3A6WKaq3XM45p3ymiuAu3vUnlQLET636TyzWa9QHfBduF2u66' },
];

/** rust-bcrypt's tests: Python's bcrypt.hashpw(b"x" * 100, ...). bcrypt reads only the first 72 bytes. */
const LONG_BCRYPT: Vector = { password: 'x'.repeat(100), hash: '$2a$05$......................YgIDy4hFBdVlc/6LHnD9mX488r9cLd2' };

const ARGON2ID: Vector[] = [
  // The Argon2 reference implementation's tests (phc-winner-argon2 src/test.c), "password" / "somesalt".
  { password: 'password', hash: '$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4' },
  { password: 'password', hash: '$argon2id$v=19$m=65536,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc' },
  // Made by PHP 8.2.36's password_hash(PASSWORD_ARGON2ID).
  {
    password: 'ключ🔑 pässwörd',
    hash: '$argon2id$v=19$m=65536,t=4,p=1$SDNpSllLLndzMEVQQld1aQ$WYJyVWIGBO6u+F96IO7WcCNHI6E3iRxeZ21gIW9Vrmk',
  },
];

/** Other passwords to try against each hash: none of them is the right one. */
const wrongFor = (password: string) => ['nope', `${password}x`, password.slice(0, -1)].filter((w) => w !== password);

async function assertMatchesOnlyItsPassword({ password, hash }: Vector): Promise<void> {
  assert.deepEqual(await verifyPassword(password, hash), { ok: true });
  for (const wrong of wrongFor(password)) assert.deepEqual(await verifyPassword(wrong, hash), { ok: false });
}

describe('WordPress 6.8+ hashes ($wp$2y$)', () => {
  for (const vector of WORDPRESS) {
    it(`verifies ${JSON.stringify(vector.password)} against ${vector.hash.slice(0, 16)}..., and nothing else`, async () => {
      await assertMatchesOnlyItsPassword(vector);
    });
  }

  it("refuses alice's password for bob, and the recorded wrong password 'nope' ([007]) for alice", async () => {
    assert.deepEqual(await verifyPassword('alice-pass-123', WORDPRESS[1]!.hash), { ok: false });
    assert.deepEqual(await verifyPassword('nope', WORDPRESS[0]!.hash), { ok: false });
  });
});

describe('phpass hashes ($P$, $H$)', () => {
  for (const { password, hash } of PHPASS) {
    it(`verifies ${JSON.stringify(password)} against ${hash} and returns its $wp$2y$ replacement`, async () => {
      const check = await verifyPassword(password, hash);
      assert.equal(check.ok, true);
      assert.ok(check.ok && check.rehash, 'a matching phpass hash comes with its replacement');
      assert.match(check.rehash, /^\$wp\$2y\$10\$[./A-Za-z0-9]{53}$/);
      assert.deepEqual(await verifyPassword(password, check.rehash), { ok: true }, 'the replacement verifies, and needs no replacing');
      for (const wrong of wrongFor(password)) assert.deepEqual(await verifyPassword(wrong, hash), { ok: false });
    });
  }

  it('answers each of many verifications at once with its own result', async () => {
    const jobs = PHPASS.flatMap(({ password, hash }) => [
      { password, hash, ok: true },
      { password: `${password}!`, hash, ok: false },
    ]);
    const checks = await Promise.all(jobs.map(({ password, hash }) => verifyPassword(password, hash)));
    assert.deepEqual(
      checks.map((c) => c.ok),
      jobs.map((j) => j.ok),
    );
  });
});

describe('bcrypt hashes ($2y$, $2a$, $2b$)', () => {
  for (const vector of BCRYPT) {
    it(`verifies ${JSON.stringify(vector.password)} against ${vector.hash.slice(0, 7)}..., with no replacement`, async () => {
      await assertMatchesOnlyItsPassword(vector);
    });
  }

  it("ignores the bytes past the 72nd, as PHP's password_verify does", async () => {
    assert.deepEqual(await verifyPassword(LONG_BCRYPT.password, LONG_BCRYPT.hash), { ok: true });
    assert.deepEqual(await verifyPassword(`${'x'.repeat(72)}anything`, LONG_BCRYPT.hash), { ok: true });
    assert.deepEqual(await verifyPassword('x'.repeat(71), LONG_BCRYPT.hash), { ok: false });
  });
});

describe('argon2id hashes', () => {
  for (const vector of ARGON2ID) {
    it(`verifies ${JSON.stringify(vector.password)} against ${vector.hash.slice(0, 32)}...`, async () => {
      await assertMatchesOnlyItsPassword(vector);
    });
  }
});

describe('hashes that match nothing', () => {
  const MALFORMED: [string, string][] = [
    ['an empty hash', ''],
    ['a password stored as it is', 'password'],
    ["an MD5 hex digest (WordPress's oldest form, not one the import brings)", '5f4dcc3b5aa765d61d8327deb882cf99'],
    ['a cut phpass hash', '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L'],
    ["a phpass hash with a character outside phpass's alphabet (passlib)", '$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r!L0'],
    ['a phpass hash with a round count under 2^7', '$P$.IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0'],
    ['a phpass hash with a round count over 2^30', '$P$zIQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0'],
    ['a bare $wp prefix', '$wp'],
    ['$wp before something other than bcrypt', '$wp$P$9IQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0'],
    ['$wp before a cut bcrypt hash', '$wp$2y$10$lri.9y2Sj3KJYPnRzfLDgepshT1ANxpqPBrX3eQ7wAuJ2Al17H/Y'],
    ['a cut bcrypt hash', '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1'],
    ['a bcrypt hash with a newline after it', '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a\n'],
    ['a bcrypt hash with a cost out of range', '$2y$99$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a'],
    ['the $2x$ bcrypt revision', '$2x$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a'],
    ['a bare $argon2id$', '$argon2id$'],
    ['an argon2id hash without its digest', '$argon2id$v=19$m=256,t=2,p=1$c29tZXNhbHQ$'],
    ['an argon2id hash with nonsense parameters', '$argon2id$v=19$m=x,t=2,p=1$c29tZXNhbHQ$nf65EOgLrQMR/uIPnA4rEsF5h7TKyQwu9U1bMCHGi/4'],
    [
      'argon2i, not argon2id (phc-winner-argon2 test.c)',
      '$argon2i$v=19$m=256,t=2,p=1$c29tZXNhbHQ$iekCn0Y3spW+sCcFanM2xBT63UP2sghkUoHLIUpWRS8',
    ],
    ["MD5-crypt of 'password' (openssl passwd -1 -salt saltsalt)", '$1$saltsalt$qjXMvbEw8oaL.CzflDtaK/'],
  ];
  for (const [label, hash] of MALFORMED) {
    it(`answers false for ${label}, without throwing`, async () => {
      assert.deepEqual(await verifyPassword('password', hash), { ok: false });
      assert.deepEqual(await verifyPassword('test12345', hash), { ok: false });
      assert.deepEqual(await verifyPassword('rasmuslerdorf', hash), { ok: false });
    });
  }

  it(`answers false for a password over ${MAX_PASSWORD_BYTES} bytes, whatever the hash, as WordPress does`, async () => {
    const long = 'x'.repeat(MAX_PASSWORD_BYTES + 1);
    for (const hash of [LONG_BCRYPT.hash, WORDPRESS[0]!.hash, PHPASS[0]!.hash])
      assert.deepEqual(await verifyPassword(long, hash), { ok: false });
  });
});

describe('hashPassword', () => {
  it('makes the WordPress 6.8+ form, salted anew each time, which verifies its password only', async () => {
    const first = await hashPassword('alice-pass-123');
    const second = await hashPassword('alice-pass-123');
    for (const hash of [first, second]) {
      assert.match(hash, /^\$wp\$2y\$10\$[./A-Za-z0-9]{53}$/);
      await assertMatchesOnlyItsPassword({ password: 'alice-pass-123', hash });
    }
    assert.notEqual(first, second);
  });

  it('tells apart passwords over 72 bytes that differ only after the 72nd byte', async () => {
    const pairs = [
      ['x'.repeat(72) + 'A', 'x'.repeat(72) + 'B'],
      ['ä'.repeat(36) + '1', 'ä'.repeat(36) + '2'],
      ['y'.repeat(199) + 'a', 'y'.repeat(199) + 'b'],
    ] as const;
    for (const [a, b] of pairs) {
      assert.ok(Buffer.from(a).subarray(0, 72).equals(Buffer.from(b).subarray(0, 72)), 'the two share their first 72 bytes');
      const hash = await hashPassword(a);
      assert.deepEqual(await verifyPassword(a, hash), { ok: true });
      assert.deepEqual(await verifyPassword(b, hash), { ok: false });
    }
  });

  it('takes the password as given: surrounding spaces are part of it', async () => {
    const hash = await hashPassword(' spaced ');
    assert.deepEqual(await verifyPassword(' spaced ', hash), { ok: true });
    assert.deepEqual(await verifyPassword('spaced', hash), { ok: false });
  });

  it(`refuses a password over ${MAX_PASSWORD_BYTES} bytes, without quoting it`, async () => {
    const long = 'secret'.repeat(700);
    await assert.rejects(hashPassword(long), (err: Error) => err instanceof RangeError && !err.message.includes('secret'));
    assert.match(await hashPassword('é'.repeat(MAX_PASSWORD_BYTES / 2)), /^\$wp\$2y\$10\$/);
  });
});

describe('burnVerification', () => {
  it('spends a verification for any password and resolves with nothing', async () => {
    for (const password of ['nope', '', 'alice-pass-123', 'x'.repeat(MAX_PASSWORD_BYTES + 1), 'ключ🔑']) {
      assert.equal(await burnVerification(password), undefined);
    }
  });
});
