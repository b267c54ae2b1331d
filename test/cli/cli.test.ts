/**
 * The `souk` CLI, each test on an SQLite file of its own (`souk demo`, on each database, is
 * test/cli/demo.test.ts): command lines run in this process through the CLI's entry
 * (test/helpers/cli.ts), and as the real `bin/souk` process where a process adds something: its
 * exit status, its standard input and pipes, its umask, `souk serve` (bin/souk loads dist/:
 * `npm test` builds it first; when running this file alone, `npm run build` before).
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { verifyPassword } from '../../src/auth/passwords.js';
import { issuedBySouk } from '../../src/auth/token-mac.js';
import { openSqlite } from '../../src/store/sqlite/driver.js';
import { COMMANDS, commandGroups, resolve } from '../../src/cli/main.js';
import { freePort, SOUK_READY, startProcess } from '../../tools/processes.js';
import { decode, envFor, BIN, ok, ROOT, scratch, souk, soukProcess, startServer, verified } from '../helpers/cli.js';
import { marketplace, SITE_URL } from '../helpers/fixtures.js';
import { outputOf, type CliRun } from '../helpers/processes.js';

const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const KEY = /^[A-Za-z0-9_-]{43,}$/;

type Run = CliRun;

/** Runs a command that must fail: non-zero exit, nothing on stdout unless given, one line on stderr. */
async function fails(
  db: string,
  args: string[],
  stderr: string | RegExp,
  opts?: { input?: string; env?: Record<string, string> },
): Promise<Run> {
  const run = await souk(db, args, opts);
  assert.notEqual(run.code, 0, `souk ${args.join(' ')} should fail`);
  assert.ok(run.code !== null);
  if (typeof stderr === 'string') assert.equal(run.stderr, stderr);
  else assert.match(run.stderr, stderr);
  return run;
}

function query<T = Record<string, unknown>>(db: string, sql: string, ...params: unknown[]): T[] {
  const conn = openSqlite(db, 5000);
  try {
    return conn.all<T>(sql, ...params);
  } finally {
    conn.close();
  }
}
const count = (db: string, table: string) => query<{ n: number }>(db, `select count(*) as n from ${table}`)[0]!.n;

function execute(db: string, sql: string, ...params: unknown[]): void {
  const conn = openSqlite(db, 5000);
  try {
    conn.run(sql, ...params);
  } finally {
    conn.close();
  }
}

function writeDocument(dir: string, document: unknown, name = 'doc.json'): string {
  const path = join(dir, name);
  writeFileSync(path, typeof document === 'string' ? document : JSON.stringify(document));
  return path;
}

async function importFixture(dir: string, db: string): Promise<void> {
  assert.equal(await ok(db, ['import', writeDocument(dir, marketplace(), 'fixture.json')]), 'imported 4 users and 5 listings\n');
}

// Every test has a database of its own, and every command line its own environment and streams: a group's tests can run side by side.
const PARALLEL = { concurrency: 4 };

// The fixture is imported once and its database copied per test.
let template = '';
before(async () => {
  assert.ok(existsSync(join(ROOT, 'dist', 'cli', 'main.js')), 'dist/ is missing: run `npm run build` (npm test does it)');
  const dir = mkdtempSync(join(tmpdir(), 'souk-cli-template-'));
  template = join(dir, 'souk.db');
  await importFixture(dir, template);
});
after(() => {
  if (template) rmSync(dirname(template), { recursive: true, force: true });
});

/** A scratch folder holding a copy of the fixture marketplace's database (settings included). */
function fixture(t: TestContext): { dir: string; db: string } {
  const s = scratch(t);
  copyFileSync(template, s.db);
  return s;
}

describe('souk import', PARALLEL, () => {
  it('imports a valid document, every field as given', async (t) => {
    const { dir, db } = scratch(t);
    await importFixture(dir, db);
    assert.equal(count(db, 'users'), 4);
    assert.equal(count(db, 'listings'), 5);
    const doc = marketplace();
    const bike = query<Record<string, unknown>>(db, 'select * from listings where id = 101')[0]!;
    assert.deepEqual(
      {
        ...bike,
        updated_at: 0,
        images: JSON.parse(bike.images as string),
        category: JSON.parse(bike.category as string),
        location: JSON.parse(bike.location as string),
      },
      {
        id: 101,
        owner_id: 2,
        title: 'Road bike',
        slug: 'road-bike',
        status: 'publish',
        price: '1200',
        version: 1,
        updated_at: 0,
        images: doc.listings![0]!.images,
        category: doc.listings![0]!.category,
        location: doc.listings![0]!.location,
      },
    );
    // Defaults for what the document leaves out: a slug from the title, status publish, "" fields.
    assert.deepEqual(query(db, 'select slug, status, price from listings where id = 102'), [
      { slug: 'draft-lamp', status: 'draft', price: '15.5' },
    ]);
    assert.deepEqual(query(db, 'select * from users where id = 3'), [
      {
        id: 3,
        login: 'sara',
        name: '',
        email: 'sara@example.com',
        phone: '',
        whatsapp: '',
        website: '',
        profile_picture: '',
        disabled: 0,
        first_name: '',
        last_name: '',
        description: '',
        is_admin: 0,
        address: '',
        zipcode: '',
        latitude: '',
        longitude: '',
        locations: '[]',
        // The blocks the user is party to (migration 017): none yet.
        blocks: 0,
        // The document does not date the account (migration 022).
        registered_at: null,
      },
    ]);
    assert.deepEqual(query(db, 'select disabled from users where id = 4'), [{ disabled: 1 }]);
  });

  it('imports from standard input with -, as a process', async (t) => {
    const { db } = scratch(t);
    assert.deepEqual(await soukProcess(db, ['import', '-'], { input: JSON.stringify(marketplace()) }), {
      code: 0,
      stdout: 'imported 4 users and 5 listings\n',
      stderr: '',
    });
    assert.equal(count(db, 'listings'), 5);
  });

  it('upserts by id: a re-import changes a title and adds nothing', async (t) => {
    const { dir, db } = fixture(t);
    const doc = marketplace();
    doc.listings![0]!.title = 'Road bike (repainted)';
    doc.users![2]!.name = 'Sara L.';
    assert.equal(await ok(db, ['import', writeDocument(dir, doc)]), 'imported 4 users and 5 listings\n');
    assert.deepEqual(query(db, 'select title from listings where id = 101'), [{ title: 'Road bike (repainted)' }]);
    assert.deepEqual(query(db, 'select name from users where id = 3'), [{ name: 'Sara L.' }]);
    assert.equal(count(db, 'listings'), 5);
    assert.equal(count(db, 'users'), 4);
    // A listing-only document may name owners already in the database.
    const more = { listings: [{ id: 201, owner_id: 3, title: 'Chair' }] };
    assert.equal(await ok(db, ['import', writeDocument(dir, more, 'more.json')]), 'imported 0 users and 1 listings\n');
    assert.equal(count(db, 'listings'), 6);
  });

  const invalid: [label: string, change: (doc: any) => void, message: string][] = [
    [
      'an image width that is a string',
      (d) => (d.listings[0].images[0].sizes.full.width = '1024'),
      'listings[0].images[0].sizes.full.width: expected integer',
    ],
    ['a user without login', (d) => delete d.users[2].login, 'users[2].login: expected required property'],
    ['an unknown listing field', (d) => (d.listings[1].colour = 'red'), 'listings[1].colour: unexpected property'],
    ['a duplicate user id', (d) => d.users.push({ ...d.users[0], login: 'again' }), 'users[4].id: duplicate id 1 (also users[0])'],
    ['a duplicate listing id', (d) => (d.listings[3].id = 101), 'listings[3].id: duplicate id 101 (also listings[0])'],
    [
      'a last listing whose owner does not exist',
      (d) => d.listings.push({ id: 106, owner_id: 99, title: 'Orphan' }),
      'listings[5].owner_id: user 99 does not exist',
    ],
    [
      'a last listing with a bad image',
      (d) => d.listings.push({ id: 106, owner_id: 2, title: 'Bad', images: [{ ...d.listings[0].images[0], src_w: -1.5 }] }),
      'listings[5].images[0].src_w: expected integer',
    ],
  ];
  for (const [label, change, message] of invalid) {
    it(`refuses a document with ${label}, naming the path, and imports nothing`, async (t) => {
      const { dir, db } = scratch(t);
      const doc = marketplace();
      change(doc);
      const run = await fails(db, ['import', writeDocument(dir, doc)], `souk: ${message} (nothing was imported)\n`);
      assert.equal(run.stdout, '');
      assert.equal(count(db, 'users'), 0);
      assert.equal(count(db, 'listings'), 0);
    });
  }

  it('leaves the database as it was when a re-import fails on its last entry', async (t) => {
    const { dir, db } = fixture(t);
    const doc = marketplace();
    doc.users![0]!.name = 'Changed';
    doc.listings![0]!.title = 'Changed';
    doc.listings!.push({ id: 106, owner_id: 99, title: 'Orphan' });
    await fails(db, ['import', writeDocument(dir, doc)], 'souk: listings[5].owner_id: user 99 does not exist (nothing was imported)\n');
    assert.deepEqual(query(db, 'select name from users where id = 1'), [{ name: 'Amina K.' }]);
    assert.deepEqual(query(db, 'select title from listings where id = 101'), [{ title: 'Road bike' }]);
    assert.equal(count(db, 'listings'), 5);
  });

  it('refuses a password hash dearer than Souk verifies, naming the user, never the hash', async (t) => {
    const { dir, db } = scratch(t);
    const dear = [
      [`$2y$15$${'a'.repeat(53)}`, 'bcrypt cost 15 is above 14'],
      [`$wp$2y$31$${'b'.repeat(53)}`, 'bcrypt cost 31 is above 14'],
      [
        '$argon2id$v=19$m=1048576,t=2,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc',
        'argon2id memory 1048576 KiB is above 262144 KiB (256 MiB)',
      ],
      ['$argon2id$v=19$m=65536,t=4000,p=1$c29tZXNhbHQ$CTFhFdXPJO1aFaMaO6Mm5c8y7cJHAph8ArZWb2GRPPc', 'argon2id time cost 4000 is above 10'],
      ['$P$CIQRaTwmfeRo7ud9Fh4E2PdI0S3r.L0', 'phpass 2^14 rounds are above 2^13'],
    ] as const;
    for (const [hash, why] of dear) {
      const doc = marketplace();
      doc.users![2] = { ...doc.users![2]!, password_hash: hash };
      const run = await fails(
        db,
        ['import', writeDocument(dir, doc)],
        `souk: users[2].password_hash: user 3 ("sara"): the password hash costs more than Souk verifies (${why}); give the user a new password first (nothing was imported)\n`,
      );
      assert.ok(!run.stderr.includes(hash.slice(12)), run.stderr);
    }
    assert.equal(count(db, 'users'), 0);
    // At the bounds: imported.
    const doc = marketplace();
    doc.users![2] = { ...doc.users![2]!, password_hash: `$2y$14$${'a'.repeat(53)}` };
    await ok(db, ['import', writeDocument(dir, doc)]);
    assert.equal(count(db, 'users'), 4);
  });

  it('refuses text that is not JSON, from a file or standard input, and a document that is not an object', async (t) => {
    const { dir, db } = scratch(t);
    const path = writeDocument(dir, '{"users": [', 'broken.json');
    await fails(
      db,
      ['import', path],
      new RegExp(`^souk: ${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is not valid JSON( \\(at character \\d+\\))?\\n$`),
    );
    await fails(db, ['import', '-'], /^souk: standard input is not valid JSON( \(at character \d+\))?\n$/, { input: 'nope' });
    // V8 quotes the text around the fault in its message: a password hash there must not be printed.
    const leaky = await fails(db, ['import', '-'], /is not valid JSON/, {
      input: '{"users":[{"password_hash":"$wp$2y$10$Secret-Hash-Text" x',
    });
    assert.ok(!leaky.stderr.includes('Secret-Hash'), leaky.stderr);
    await fails(db, ['import', writeDocument(dir, [], 'array.json')], 'souk: (document): expected object (nothing was imported)\n');
    assert.equal(count(db, 'users'), 0);
  });
});

describe('souk users set-password', PARALLEL, () => {
  const storedHash = (db: string) => {
    const sqlite = openSqlite(db, 1000);
    try {
      return sqlite.all<{ password_hash: string }>('select password_hash from user_credentials where user_id = 3')[0]?.password_hash;
    } finally {
      sqlite.close();
    }
  };

  it("stores the password from standard input in WordPress 6.8's form, printing neither it nor its hash, as a process", async (t) => {
    const { db } = fixture(t);
    // As a process: nothing Souk or a library it loads writes to the process's streams may show either.
    const run = await soukProcess(db, ['users', 'set-password', '3'], { input: 'n3w pässword\n' });
    assert.deepEqual(run, { code: 0, stdout: 'password set for user 3\n', stderr: '' });
    const hash = storedHash(db)!;
    assert.match(hash, /^\$wp\$2y\$10\$/);
    assert.deepEqual(await verifyPassword('n3w pässword', hash), { ok: true });
    assert.deepEqual(await verifyPassword('n3w pässword\n', hash), { ok: false }, 'the trailing newline is not part of it');
  });

  it('refuses an unknown user, an empty password and bad usage, storing nothing', async (t) => {
    const { db } = fixture(t);
    await fails(db, ['users', 'set-password', '999'], 'souk: no user with id 999\n', { input: 'secret' });
    await fails(db, ['users', 'set-password', '3'], 'souk: the password is empty: send it on standard input\n', { input: '\n' });
    await fails(db, ['users', 'set-password'], 'souk: users set-password: missing ID; see souk users set-password --help\n');
    await fails(db, ['users', 'set-password', 'abc'], 'souk: ID must be a positive integer, got "abc"\n', { input: 'secret' });
    assert.equal(storedHash(db), undefined);
  });
});

describe('souk token', PARALLEL, () => {
  it("prints only a JWT for the user, signed with the stored secret and marked as Souk's, valid for a day", async (t) => {
    const { db } = fixture(t);
    const run = await souk(db, ['token', '1']);
    assert.equal(run.code, 0);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, /\n$/);
    const token = run.stdout.trimEnd();
    assert.match(token, JWT);
    const secret = (await ok(db, ['settings', 'get', 'jwt_secret'])).trimEnd();
    const claims = verified(token, secret);
    // D9's claims, and a jti: a random nonce and Souk's mark on the claims (servers refuse a token without it).
    assert.deepEqual(Object.keys(claims).sort(), ['exp', 'iat', 'jti', 'name', 'sub']);
    assert.match(String(claims.jti), /^[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}$/);
    const macKey = (await ok(db, ['settings', 'get', 'token_mac_key'])).trimEnd();
    assert.ok(issuedBySouk(claims, macKey));
    assert.ok(!issuedBySouk({ ...claims, sub: '2' }, macKey));
    assert.equal(claims.sub, '1');
    assert.equal(claims.name, 'amina');
    assert.equal((claims.exp as number) - (claims.iat as number), 86_400);
  });

  it('issues up to TOKEN_MAX_TTL_S, and no default lifetime above it', async (t) => {
    const { db } = fixture(t);
    const longest = decode((await ok(db, ['token', '3', '--ttl', '2592000'])).trimEnd().split('.')[1]!);
    assert.equal((longest.exp as number) - (longest.iat as number), 2_592_000);
    const capped = decode((await ok(db, ['token', '3'], { env: { TOKEN_MAX_TTL_S: '600' } })).trimEnd().split('.')[1]!);
    assert.equal((capped.exp as number) - (capped.iat as number), 600);
    await fails(db, ['token', '3', '--ttl', '601'], /^souk: --ttl must be at most 600 seconds \(TOKEN_MAX_TTL_S\)/, {
      env: { TOKEN_MAX_TTL_S: '600' },
    });
  });

  it('honours --ttl', async (t) => {
    const { db } = fixture(t);
    const claims = decode((await ok(db, ['token', '3', '--ttl', '60'])).trimEnd().split('.')[1]!);
    assert.equal(claims.sub, '3');
    assert.equal((claims.exp as number) - (claims.iat as number), 60);
  });

  it('refuses unknown or disabled users and bad arguments, printing nothing on stdout', async (t) => {
    const { db } = fixture(t);
    for (const [args, message] of [
      [['token', '99'], 'souk: no user with id 99\n'],
      [['token', '4'], 'souk: user 4 is disabled; a token for it would be refused\n'],
      [['token', 'abc'], 'souk: USER_ID must be a positive integer, got "abc"\n'],
      [['token', '1', '--ttl', '0'], 'souk: --ttl must be a positive integer, got "0"\n'],
      [
        ['token', '1', '--ttl', '999999999999999'],
        'souk: --ttl must be at most 2592000 seconds (TOKEN_MAX_TTL_S): servers refuse a longer-lived token, got 999999999999999\n',
      ],
      [
        ['token', '1', '--ttl', '2592001'],
        'souk: --ttl must be at most 2592000 seconds (TOKEN_MAX_TTL_S): servers refuse a longer-lived token, got 2592001\n',
      ],
    ] as const) {
      const run = await fails(db, [...args], message);
      assert.equal(run.stdout, '', args.join(' '));
    }
  });
});

describe('souk settings and api-key', PARALLEL, () => {
  it('lists api_key and jwt_secret masked whole and rest_api, generated once per installation; get prints one value', async (t) => {
    const { db } = scratch(t);
    const list = await souk(db, ['settings']);
    assert.equal(list.code, 0, list.stderr);
    const apiKey = (await ok(db, ['settings', 'get', 'api_key'])).trimEnd();
    const secret = (await ok(db, ['settings', 'get', 'jwt_secret'])).trimEnd();
    assert.match(apiKey, KEY);
    assert.match(secret, KEY);
    assert.notEqual(apiKey, secret);
    assert.equal(list.stdout, 'api_key=****\njwt_secret=****\nrest_api=true\ntoken_mac_key=****\n');
    // Not even their first characters, on either stream.
    for (const value of [apiKey, secret]) assert.ok(!`${list.stdout}${list.stderr}`.includes(value.slice(0, 4)), list.stderr);
    const other = scratch(t);
    assert.notEqual((await ok(other.db, ['settings', 'get', 'api_key'])).trimEnd(), apiKey);
  });

  it('sets rest_api to false', async (t) => {
    const { db } = scratch(t);
    assert.equal(await ok(db, ['settings', 'get', 'rest_api']), 'true\n');
    assert.equal(await ok(db, ['settings', 'set', 'rest_api', 'false']), 'rest_api=false\n');
    assert.equal(await ok(db, ['settings', 'get', 'rest_api']), 'false\n');
  });

  it('refuses bad settings and leaves the values as they were', async (t) => {
    const { db } = scratch(t);
    const apiKey = await ok(db, ['settings', 'get', 'api_key']);
    await fails(db, ['settings', 'set', 'rest_api', 'maybe'], 'souk: rest_api must be true or false, got "maybe"\n');
    await fails(db, ['settings', 'set', 'rest_api', 'FALSE'], 'souk: rest_api must be true or false, got "FALSE"\n');
    await fails(
      db,
      ['settings', 'set', 'api_key', 'mine'],
      'souk: settings set: only rest_api, bad_words, bad_words_action, messages_per_minute, new_conversations_per_hour, reports_per_hour, block_changes_per_hour, chat_retention_days, mail_delay_s, mail_min_interval_s are set this way, got "api_key"; see souk settings set --help\n',
    );
    await fails(
      db,
      ['settings', 'set', 'messages_per_minute', 'lots'],
      'souk: messages_per_minute must be a whole number from 0 to 1000000, or empty for the environment\'s value, got "lots"\n',
    );
    await fails(db, ['settings', 'get', 'nope'], 'souk: unknown setting "nope"; known: api_key, jwt_secret, rest_api, token_mac_key\n');
    assert.equal(await ok(db, ['settings', 'set', 'chat_retention_days', '90']), 'chat_retention_days=90\n');
    assert.equal(await ok(db, ['settings', 'get', 'rest_api']), 'true\n');
    assert.equal(await ok(db, ['settings', 'get', 'api_key']), apiKey);
  });

  it('rotates the API key, printing the new one', async (t) => {
    const { db } = scratch(t);
    const old = (await ok(db, ['settings', 'get', 'api_key'])).trimEnd();
    const printed = await ok(db, ['api-key', 'rotate']);
    assert.match(printed, /^[A-Za-z0-9_-]{43,}\n$/);
    assert.notEqual(printed.trimEnd(), old);
    assert.equal(await ok(db, ['settings', 'get', 'api_key']), printed);
  });
});

describe('souk jwt-secret rotate', PARALLEL, () => {
  it('replaces the secret, printing no secret; without --grace no previous secret is kept', async (t) => {
    const { db } = scratch(t);
    const old = (await ok(db, ['settings', 'get', 'jwt_secret'])).trimEnd();
    assert.equal(await ok(db, ['jwt-secret', 'rotate']), 'jwt_secret rotated; tokens signed with the previous secret are refused\n');
    const secret = (await ok(db, ['settings', 'get', 'jwt_secret'])).trimEnd();
    assert.match(secret, KEY);
    assert.notEqual(secret, old);
    assert.equal(await ok(db, ['settings', 'get', 'jwt_secret_previous']), '\n');
  });

  it('with --grace keeps the previous secret until then, masked in the settings list', async (t) => {
    const { db } = scratch(t);
    const old = (await ok(db, ['settings', 'get', 'jwt_secret'])).trimEnd();
    const started = Date.now();
    const out = await ok(db, ['jwt-secret', 'rotate', '--grace', '3600']);
    const until = /^jwt_secret rotated; tokens signed with the previous secret are accepted until (\S+)\n$/.exec(out)?.[1];
    assert.ok(until, out);
    assert.ok(Math.abs(Date.parse(until) - (started + 3_600_000)) < 60_000, until);
    const previous = JSON.parse(await ok(db, ['settings', 'get', 'jwt_secret_previous'])) as unknown;
    assert.deepEqual(previous, { secret: old, until });
    const list = await ok(db, ['settings']);
    assert.ok(!list.includes(old), list);
    assert.ok(!list.includes((await ok(db, ['settings', 'get', 'jwt_secret'])).trimEnd()), list);
  });

  it('refuses a bad --grace or usage, changing nothing', async (t) => {
    const { db } = scratch(t);
    const secret = await ok(db, ['settings', 'get', 'jwt_secret']);
    await fails(db, ['jwt-secret', 'rotate', '--grace', 'soon'], 'souk: --grace must be a positive integer, got "soon"\n');
    await fails(
      db,
      ['jwt-secret', 'rotate', '--grace', '2592001'],
      'souk: --grace must be at most 2592000 seconds (TOKEN_MAX_TTL_S), got 2592001\n',
    );
    await fails(db, ['jwt-secret'], 'souk: jwt-secret: missing COMMAND (rotate); see souk jwt-secret --help\n');
    await fails(db, ['jwt-secret', 'renew'], 'souk: jwt-secret: unknown command renew; see souk jwt-secret --help\n');
    assert.equal(await ok(db, ['settings', 'get', 'jwt_secret']), secret);
  });
});

describe('souk listings delete', PARALLEL, () => {
  it('removes a listing and drops it from every favourite list', async (t) => {
    const { db } = fixture(t);
    for (const [user, listing] of [
      [1, 101],
      [3, 101],
      [1, 103],
    ]) {
      execute(db, 'insert into favourites (user_id, listing_id, added_at) values (?, ?, 0)', user, listing);
    }
    assert.equal(await ok(db, ['listings', 'delete', '101']), 'deleted 1 listing: 101\n');
    assert.deepEqual(query(db, 'select id from listings where id = 101'), []);
    assert.deepEqual(query(db, 'select user_id, listing_id from favourites'), [{ user_id: 1, listing_id: 103 }]);
    assert.equal(count(db, 'listings'), 4);
  });

  it('fails for an unknown id, deleting the known ones', async (t) => {
    const { db } = fixture(t);
    const run = await fails(db, ['listings', 'delete', '999'], 'souk: no listing with id 999\n');
    assert.equal(run.stdout, 'deleted 0 listings\n');
    const mixed = await fails(db, ['listings', 'delete', '102', '998'], 'souk: no listing with id 998\n');
    assert.equal(mixed.stdout, 'deleted 1 listing: 102\n');
    assert.equal(count(db, 'listings'), 4);
    await fails(db, ['listings', 'delete', 'abc'], 'souk: listing ids must be positive integers, got "abc"\n');
    await fails(db, ['listings', 'delete'], 'souk: listings delete: missing ID; see souk listings delete --help\n');
    assert.equal(count(db, 'listings'), 4);
  });
});

describe('souk serve', PARALLEL, () => {
  for (const [name, value] of [
    ['PORT', 'abc'],
    ['TEXT_MAX_LENGTH', '0'],
    ['SITE_TIMEZONE', 'Mars/Olympus'],
  ] as const) {
    it(`exits non-zero with one line naming ${name} when ${name}=${value}`, async (t) => {
      const { db } = scratch(t);
      const run = await souk(db, ['serve'], { env: { [name]: value } });
      assert.notEqual(run.code, 0);
      assert.equal(run.stdout, '');
      const lines = run.stderr.split('\n').filter((l) => l !== '');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, new RegExp(`^souk: invalid setting: ${name} `));
      assert.ok(lines[0]!.includes(value), lines[0]);
    });
  }
});

describe('the CLI explains itself', PARALLEL, () => {
  const names = [...new Set([...COMMANDS.map((c) => c.name), ...commandGroups().keys()])];

  it('has every command that src/cli/commands/ declares in its list', async () => {
    const folder = join(ROOT, 'src', 'cli', 'commands');
    const declared = [];
    for (const file of readdirSync(folder)) {
      for (const value of Object.values(await import(join(folder, file)))) {
        for (const item of [value].flat()) if (typeof item === 'object' && item && 'run' in item && 'name' in item) declared.push(item);
      }
    }
    assert.ok(declared.length >= COMMANDS.length);
    for (const command of declared) assert.ok(COMMANDS.includes(command as never), `${(command as { name: string }).name} is in COMMANDS`);
  });

  it('lists every command in souk --help', async (t) => {
    const { db } = scratch(t);
    const help = await ok(db, ['--help']);
    assert.equal(await ok(db, []), help);
    for (const command of COMMANDS) assert.match(help, new RegExp(`^  ${command.name}( |$)`, 'm'), command.name);
  });

  // Each command's help and refusal, read from the words as `souk` reads them (resolve); that souk
  // prints the one and exits 2 on the other is run as a process by the tests below.
  const helpOf = (words: string[]) => {
    const resolved = resolve(words);
    assert.ok('print' in resolved, `${words.join(' ')} prints help`);
    return resolved.print;
  };
  for (const name of names) {
    it(`souk ${name} --help says what it does, its arguments and options, with an example`, () => {
      const help = helpOf([...name.split(' '), '--help']);
      assert.match(help, new RegExp(`^usage: souk ${name}( |\\n)`));
      const command = COMMANDS.find((c) => c.name === name);
      const group = commandGroups().get(name) ?? [];
      for (const sub of group) assert.ok(help.includes(sub.name), `${name} --help lists ${sub.name}`);
      if (!command) return; // a group: its commands' own help is tested by name
      assert.ok(command.about.length > 40, `${name} says what it does`);
      assert.ok(help.includes(command.about.split(' ').slice(0, 6).join(' ')), help);
      for (const arg of command.args ?? []) assert.match(help, new RegExp(`^  ${arg.name.replace(/[|]/g, '\\|')} +\\S`, 'm'));
      for (const [option, o] of Object.entries(command.options ?? {}))
        assert.match(help, new RegExp(o.flag ? `^  --${option} +\\S` : `^  --${option} \\S+ +\\S`, 'm'));
      assert.match(help, new RegExp(`^examples?:\\n  .*souk ${name}`, 'm'));
      assert.ok(command.examples.length > 0 && command.examples.every((e) => e.includes(`souk ${name}`)), 'every example runs the command');
    });

    it(`souk ${name} refuses an option it does not take with one line, exit 2`, () => {
      assert.throws(
        () => resolve([...name.split(' '), '--no-such-option']),
        (err: Error & { exitCode?: number }) =>
          err.message === `${name}: unknown option --no-such-option; see souk ${name} --help` && err.exitCode === 2,
      );
    });
  }

  it('prints and exits as a process as it does in this one (the tests run most command lines here)', async (t) => {
    const { db } = fixture(t);
    const env = { API_KEY: 'k'.repeat(43), JWT_SECRET: 's'.repeat(43) };
    for (const args of [['--help'], ['config'], ['settings'], ['listings', 'delete', '999'], ['frob'], ['token', '1', '--ttl', 'x']]) {
      assert.deepEqual(await soukProcess(db, args, { env }), await souk(db, args, { env }), args.join(' '));
    }
  });

  it("prints a command's help and exits 2 on an option it does not take, as a process", async (t) => {
    const { db } = scratch(t);
    for (const name of ['users disable', 'webhooks']) {
      assert.deepEqual(await soukProcess(db, [...name.split(' '), '--help']), {
        code: 0,
        stdout: `${helpOf([...name.split(' '), '--help'])}\n`,
        stderr: '',
      });
      assert.deepEqual(await soukProcess(db, [...name.split(' '), '--no-such-option']), {
        code: 2,
        stdout: '',
        stderr: `souk: ${name}: unknown option --no-such-option; see souk ${name} --help\n`,
      });
    }
  });

  it('gives the same help for -h and souk help NAME', async (t) => {
    const { db } = scratch(t);
    const help = await ok(db, ['webhooks', 'list', '--help']);
    assert.equal(await ok(db, ['webhooks', 'list', '-h']), help);
    assert.equal(await ok(db, ['help', 'webhooks', 'list']), help);
    assert.equal(await ok(db, ['help', 'webhooks']), await ok(db, ['webhooks', '--help']));
  });

  it('refuses an unknown command, a missing or extra argument and an option without its value, each with one line', async (t) => {
    const { db } = scratch(t);
    for (const [args, line] of [
      [['frob'], 'souk: unknown command frob; see souk --help'],
      [['--port', '9'], 'souk: unknown option --port; see souk --help'],
      [['webhooks', 'frob'], 'souk: webhooks: unknown command frob; see souk webhooks --help'],
      [['token'], 'souk: token: missing USER_ID; see souk token --help'],
      [['token', '1', '2'], 'souk: token: unexpected argument 2; see souk token --help'],
      [['token', '1', '--ttl'], 'souk: token: --ttl needs a value (SECONDS); see souk token --help'],
      [['token', '1', '-t', '5'], 'souk: token: unknown option -t; see souk token --help'],
      [
        ['webhooks', 'list', '--status=failed', '--verbose'],
        'souk: webhooks list: unknown option --verbose; see souk webhooks list --help',
      ],
      [['serve', '--port', 'abc'], 'souk: serve: --port must be an integer from 0 to 65535, got "abc"; see souk serve --help'],
    ] as const) {
      assert.deepEqual(await souk(db, [...args]), { code: 2, stdout: '', stderr: `${line}\n` }, args.join(' '));
    }
    assert.ok(!existsSync(db), 'a refused command opens no database');
  });

  it('serve --port and --host override PORT and HOST', async (t) => {
    const { db } = scratch(t);
    const port = await freePort();
    const server = await startProcess('souk serve --port', {
      args: [BIN, 'serve', '--port', String(port), '--host', '127.0.0.1'],
      env: envFor(db, { HOST: '192.0.2.1' }) as Record<string, string>,
      ready: SOUK_READY,
      cwd: ROOT,
    });
    t.after(() => server.stop());
    assert.match(server.output(), new RegExp(`serving the interface at http://127\\.0\\.0\\.1:${port}/wp-json/rtcl/v1\\n`));
    assert.notEqual(server.url, `http://127.0.0.1:${port}`, 'PORT names another port');
    assert.equal((await fetch(`http://127.0.0.1:${port}/wp-json/rtcl/v1/my/chat`)).status, 401);
    await assert.rejects(fetch(`${server.url}/wp-json/rtcl/v1/my/chat`), 'nothing listens on PORT');
  });

  it('ends quietly when its reader closes the pipe early (souk config | head -1)', async (t) => {
    const { db } = scratch(t);
    const env = envFor(db, { API_KEY: 'k'.repeat(43), JWT_SECRET: 's'.repeat(43) });
    // The reading end closed before souk writes a line: every write meets EPIPE.
    const child = spawn(process.execPath, [BIN, 'config'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.destroy();
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    const code = await new Promise((resolve) => child.on('close', resolve));
    assert.deepEqual({ code, stderr }, { code: 0, stderr: '' });
    // And as a shell runs it; souk's exit status is the pipeline's with `; echo $?` on its own.
    const shell = spawn('sh', ['-c', `"${process.execPath}" bin/souk config | head -1`], { cwd: ROOT, env });
    const piped = await outputOf(shell);
    assert.deepEqual(piped, { code: 0, stdout: 'PORT=8080\n', stderr: '' });
  });

  it('webhooks list says when WEBHOOK_URLS is unset and how to set it', async (t) => {
    const { db } = scratch(t);
    const unset = await souk(db, ['webhooks', 'list']);
    assert.equal(unset.code, 0, unset.stderr);
    assert.equal(unset.stdout, 'id\tstatus\tattempts\tcreated\ttype\twebhook-id\turl\tlast error\n');
    assert.equal(
      unset.stderr,
      'note: WEBHOOK_URLS is unset, so no webhooks are sent: set it to the receivers\' addresses (comma-separated) and WEBHOOK_SECRET (whsec_...), then restart souk serve; see "Webhooks" in docs/events.md\n',
    );
    const set = await souk(db, ['webhooks', 'list'], {
      env: { WEBHOOK_URLS: 'http://127.0.0.1:9/hook', WEBHOOK_SECRET: `whsec_${Buffer.alloc(32, 7).toString('base64')}` },
    });
    assert.deepEqual({ code: set.code, stderr: set.stderr }, { code: 0, stderr: '' });
  });
});

describe('souk pusher list', PARALLEL, () => {
  it('lists the Pusher outbox newest first, filtered by --status, and says when no app is set', async (t) => {
    const { db } = scratch(t);
    await ok(db, ['migrate']);
    execute(
      db,
      `insert into pusher_outbox (user_id, name, payload, created_at, status, attempts, next_attempt_at, last_error, sent_at)
       values (2, 'message.new', '{}', 1764633600000, 'sent', 0, 1764633600000, null, 1764633600250),
              (1, 'conversation.unread', '{}', 1764633601000, 'failed', 1, 1764633601000, 'HTTP 401: invalid signature', null)`,
    );
    const unset = await souk(db, ['pusher', 'list']);
    assert.equal(unset.code, 0, unset.stderr);
    assert.equal(
      unset.stdout,
      'id\tstatus\tattempts\tcreated\tsent\tevent\tuser\tlast error\n' +
        '2\tfailed\t1\t2025-12-02T00:00:01.000Z\t\tconversation.unread\t1\tHTTP 401: invalid signature\n' +
        '1\tsent\t0\t2025-12-02T00:00:00.000Z\t2025-12-02T00:00:00.250Z\tmessage.new\t2\t\n',
    );
    assert.match(unset.stderr, /^note: PUSHER_URL is unset and this is not a WordPress site/);
    const failed = await souk(db, ['pusher', 'list', '--status', 'failed'], {
      env: { PUSHER_URL: 'https://key:a-very-secret-secret@api-eu.pusher.com/apps/12' },
    });
    assert.deepEqual({ code: failed.code, stderr: failed.stderr }, { code: 0, stderr: '' });
    assert.deepEqual(
      failed.stdout
        .trim()
        .split('\n')
        .map((l) => l.split('\t')[0]),
      ['id', '2'],
    );
    const bad = await souk(db, ['pusher', 'list', '--status', 'lost']);
    assert.deepEqual(
      { code: bad.code, stderr: bad.stderr },
      { code: 1, stderr: 'souk: --status must be one of pending, sent, failed, got "lost"\n' },
    );
  });

  it('a malformed PUSHER_URL stops start-up with one line naming the setting, never the secret', async (t) => {
    const { db } = scratch(t);
    for (const url of [
      'https://key@api-eu.pusher.com/apps/12',
      'key:a-very-secret-secret',
      'https://key:a-very-secret-secret@api-eu.pusher.com/12',
    ]) {
      const run = await souk(db, ['serve'], { env: { PUSHER_URL: url } });
      assert.equal(run.code, 1, url);
      assert.equal(run.stderr.trim().split('\n').length, 1, run.stderr);
      assert.match(run.stderr, /PUSHER_URL must be https:\/\/KEY:SECRET@HOST\[:PORT\]\/apps\/APP_ID/);
      assert.ok(!run.stderr.includes('a-very-secret-secret') && !run.stdout.includes('a-very-secret-secret'), url);
    }
  });
});

describe('souk and its database', PARALLEL, () => {
  it('refuses a SQLite path whose folder does not exist, naming the folder, and creates nothing', async (t) => {
    const { dir } = scratch(t);
    const db = join(dir, 'typo', 'dir', 'souk.db');
    for (const args of [['serve'], ['migrate'], ['settings', 'get', 'api_key']]) {
      assert.deepEqual(
        await souk(db, args),
        {
          code: 1,
          stdout: '',
          stderr:
            `souk: cannot use the database sqlite:${db} (DATABASE_URL): the folder ${join(dir, 'typo', 'dir')} does not exist; ` +
            `Souk creates only its default folder (./data); create this one (mkdir -p ${join(dir, 'typo', 'dir')}) or correct the path in DATABASE_URL\n`,
        },
        args.join(' '),
      );
    }
    assert.deepEqual(readdirSync(dir), [], 'no folder, no database, no API key');
    // A folder that exists takes a new database.
    mkdirSync(dirname(db), { recursive: true });
    assert.equal(await ok(db, ['migrate']), 'database is up to date\n');
  });

  it('creates the default ./data folder (0700) on first start, DATABASE_URL unset or set to the default', async (t) => {
    for (const env of [{}, { DATABASE_URL: 'sqlite:./data/souk.db' }]) {
      const { dir } = scratch(t);
      const child = spawn(process.execPath, [BIN, 'migrate'], {
        cwd: dir,
        env: { PATH: process.env.PATH, SITE_URL, LOG_LEVEL: 'warn', ...env },
      });
      child.stdin.end();
      assert.deepEqual(await outputOf(child), { code: 0, stdout: 'database is up to date\n', stderr: '' });
      assert.equal(statSync(join(dir, 'data')).mode & 0o777, 0o700);
      assert.ok(statSync(join(dir, 'data', 'souk.db')).isFile());
    }
  });

  /** A server that takes connections and closes them at once: no database answers there. */
  async function closingServer(t: TestContext): Promise<number> {
    // It reads the client's first packet, then closes in order: a reset instead would race the client's write.
    const server = createServer((socket) => socket.once('data', () => socket.end())).listen(0, '127.0.0.1');
    await once(server, 'listening');
    t.after(() => server.close());
    return (server.address() as AddressInfo).port;
  }

  const refusal = (url: string, reason: string, hint: string) =>
    `souk: cannot use the database ${url} (DATABASE_URL): ${reason}; ${hint}\n`;

  const cases: [label: string, setUp: (t: TestContext, dir: string) => Promise<{ url: string; stderr: string }>][] = [
    [
      'a refused PostgreSQL port',
      async () => {
        const port = await freePort();
        return {
          url: `postgres://souk:s3cret-pw@127.0.0.1:${port}/souk`,
          stderr: refusal(
            `postgres://souk:****@127.0.0.1:${port}/souk`,
            `connect ECONNREFUSED 127.0.0.1:${port}`,
            `is PostgreSQL running and listening at 127.0.0.1:${port}? Check DATABASE_URL's host and port`,
          ),
        };
      },
    ],
    [
      'a refused MySQL port',
      async () => {
        const port = await freePort();
        return {
          url: `mysql://wp:s3cret-pw@127.0.0.1:${port}/wordpress`,
          stderr: refusal(
            `mysql://wp:****@127.0.0.1:${port}/wordpress`,
            `connect ECONNREFUSED 127.0.0.1:${port}`,
            `is MySQL or MariaDB running and listening at 127.0.0.1:${port}? Check DATABASE_URL's host and port`,
          ),
        };
      },
    ],
    [
      'a PostgreSQL address whose server closes the connection',
      async (t) => {
        const port = await closingServer(t);
        return {
          url: `postgres://souk:s3cret-pw@127.0.0.1:${port}/souk`,
          stderr: refusal(
            `postgres://souk:****@127.0.0.1:${port}/souk`,
            'Connection terminated unexpectedly',
            `the server at 127.0.0.1:${port} closed the connection: check that it is a PostgreSQL server, that it accepts this client (its log says why) and whether it asks for TLS`,
          ),
        };
      },
    ],
    [
      'a file that is not a database',
      async (_t, dir) => {
        const file = join(dir, 'notes.db');
        writeFileSync(file, 'shopping list: bread, milk\n'.repeat(200));
        return {
          url: `sqlite:${file}`,
          stderr: refusal(
            `sqlite:${file}`,
            'file is not a database',
            'check that DATABASE_URL names a Souk SQLite database (a file Souk created), not some other file',
          ),
        };
      },
    ],
  ];
  for (const [label, setUp] of cases) {
    it(`names the database and what to check for ${label}, at start-up and in a command`, async (t) => {
      const { dir } = scratch(t);
      const { url, stderr } = await setUp(t, dir);
      for (const args of [['serve'], ['token', '1']]) {
        assert.deepEqual(await souk('', args, { env: { DATABASE_URL: url } }), { code: 1, stdout: '', stderr }, args.join(' '));
      }
    });
  }
});

// ---- live settings: a real server process and the CLI changing its settings ----

/** Calls `probe` every 100 ms until `done` holds for its result; returns the result and the time it took. */
async function pollUntil<T>(probe: () => Promise<T>, done: (value: T) => boolean, limitMs: number): Promise<{ value: T; ms: number }> {
  const started = Date.now();
  for (;;) {
    const value = await probe();
    const ms = Date.now() - started;
    if (done(value) || ms > limitMs) return { value, ms };
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('live settings (server process + CLI)', () => {
  it('applies `settings set rest_api false` and `api-key rotate` to a running server within 5 s', async (t) => {
    const { db } = fixture(t);
    const token = (await ok(db, ['token', '3'])).trimEnd();
    const oldKey = (await ok(db, ['settings', 'get', 'api_key'])).trimEnd();
    const { server, base } = await startServer(t, db);

    const post = async (path: string, key: string, body: unknown) => {
      const res = await fetch(base + path, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'x-api-key': key, 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    // Probes about a missing listing: 400 once let in, so polling them stores nothing.
    const probeStart = () => post('/my/chat/conversation', oldKey, { listing_id: 999, text: 'still there?' });
    const probeKey = (key: string) => post('/my/favourites', key, { listing_id: 999 });

    const first = await post('/my/chat/conversation', oldKey, { listing_id: 101, text: 'still there?' });
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.equal(first.body.sender_id, 3);
    assert.equal((await probeStart()).status, 400);

    await ok(db, ['settings', 'set', 'rest_api', 'false']);
    const denied = await pollUntil(probeStart, (r) => r.body.code === 'DENIED_REST_API', 10_000);
    assert.deepEqual(denied.value, { status: 403, body: { code: 'DENIED_REST_API', message: 'Denied api call', data: { status: 403 } } });
    assert.ok(denied.ms <= 5000, `took ${denied.ms} ms`);
    // The toggle does not depend on the switch.
    assert.equal((await probeKey(oldKey)).status, 400);

    const newKey = (await ok(db, ['api-key', 'rotate'])).trimEnd();
    assert.notEqual(newKey, oldKey);
    const refused = await pollUntil(
      () => probeKey(oldKey),
      (r) => r.body.error === 'INVALID_API_KEY',
      10_000,
    );
    assert.deepEqual(refused.value, {
      status: 401,
      body: { status: 'error', error: 'INVALID_API_KEY', code: '401', error_message: 'Sorry, you are using invalid API Key.' },
    });
    assert.ok(refused.ms <= 5000, `took ${refused.ms} ms`);
    assert.deepEqual(await probeKey(newKey), {
      status: 400,
      body: { status: 'error', error: 'BADREQUEST', code: '400', error_message: 'Listing not found.' },
    });
    assert.deepEqual(await post('/my/favourites', newKey, { listing_id: 101 }), {
      status: 200,
      body: [101] as unknown as Record<string, unknown>,
    });

    // SIGTERM closes the server cleanly.
    assert.equal(await server.stop(), 0, server.output());
    assert.equal(count(db, 'messages'), 1);
  });
});

describe('jwt-secret rotate on a running server', () => {
  it('--grace: tokens of the old secret are accepted until the grace ends, then refused; new tokens from the rotation on', async (t) => {
    const { db } = fixture(t);
    const oldToken = (await ok(db, ['token', '3'])).trimEnd();
    const apiKey = (await ok(db, ['settings', 'get', 'api_key'])).trimEnd();
    const { server, base } = await startServer(t, db, { SETTINGS_REFRESH_MS: '200' });
    // A missing listing: 400 once the token is let in, so probing stores nothing.
    const probe = async (token: string) => {
      const res = await fetch(`${base}/my/favourites`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ listing_id: 999 }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, unknown> };
    };
    const refused = {
      status: 401,
      body: { status: 'error', error: 'INVALID_TOKEN', code: '401', error_message: 'JWT signature verification failed.' },
    };
    assert.equal((await probe(oldToken)).status, 400);

    await ok(db, ['jwt-secret', 'rotate', '--grace', '8']);
    const newToken = (await ok(db, ['token', '3'])).trimEnd();
    const pickedUp = await pollUntil(
      () => probe(newToken),
      (r) => r.status === 400,
      10_000,
    );
    assert.equal(pickedUp.value.status, 400, JSON.stringify(pickedUp.value));
    // The server has the new secret and still takes the old one's tokens (the grace is 8 s).
    assert.equal((await probe(oldToken)).status, 400);
    const ended = await pollUntil(
      () => probe(oldToken),
      (r) => r.status === 401,
      20_000,
    );
    assert.deepEqual(ended.value, refused);
    assert.equal((await probe(newToken)).status, 400);

    // Without a grace the previous secret's tokens stop as soon as the server has the new secret.
    await ok(db, ['jwt-secret', 'rotate']);
    const newest = (await ok(db, ['token', '3'])).trimEnd();
    assert.equal(
      (
        await pollUntil(
          () => probe(newest),
          (r) => r.status === 400,
          10_000,
        )
      ).value.status,
      400,
    );
    assert.deepEqual(await probe(newToken), refused);
    assert.equal(await server.stop(), 0, server.output());
  });
});
