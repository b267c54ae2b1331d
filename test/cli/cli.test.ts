/**
 * The real `souk` CLI as a child process (bin/souk loads dist/: `npm test` builds it first;
 * when running this file alone, `npm run build` before).
 */
import { after, before, describe, it, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { copyFileSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { verifyPassword } from '../../src/auth/passwords.js';
import { openSqlite } from '../../src/store/sqlite/driver.js';
import { SOUK_READY, startProcess, type ServerProcess } from '../../tools/processes.js';
import { freshDatabase } from '../helpers/database.js';
import { checkExchange, demoCommands, runDemoCommands } from '../helpers/demo-exchange.js';
import { marketplace, SITE_URL } from '../helpers/fixtures.js';
import { outputOf, type CliRun } from '../helpers/processes.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin', 'souk');
const JWT = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;
const KEY = /^[A-Za-z0-9_-]{43,}$/;

type Run = CliRun;

/** A scratch folder with the database path every command of one test uses. */
function scratch(t: TestContext): { dir: string; db: string } {
  const dir = mkdtempSync(join(tmpdir(), 'souk-cli-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { dir, db: join(dir, 'souk.db') };
}

/** The environment of a command: only what Souk reads, so the caller's shell cannot leak in. */
function envFor(db: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, DATABASE_URL: `sqlite:${db}`, SITE_URL, LOG_LEVEL: 'warn', ...extra };
}

function souk(db: string, args: string[], opts: { input?: string; env?: Record<string, string> } = {}): Promise<Run> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env: envFor(db, opts.env) });
  const run = outputOf(child);
  // A command that exits without reading its input must not fail the test with EPIPE.
  child.stdin.on('error', () => {});
  if (opts.input === undefined) child.stdin.end();
  else child.stdin.end(opts.input);
  return run;
}

/** Runs a command that must succeed and returns its standard output. */
async function ok(db: string, args: string[], opts?: { input?: string; env?: Record<string, string> }): Promise<string> {
  const run = await souk(db, args, opts);
  assert.equal(run.code, 0, `souk ${args.join(' ')}: ${run.stderr}`);
  return run.stdout;
}

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

function decode(segment: string): Record<string, unknown> {
  return JSON.parse(Buffer.from(segment, 'base64url').toString('utf8'));
}

/** Checks an HS256 token's signature against the secret and returns its claims. */
function verified(token: string, secret: string): Record<string, unknown> {
  const [header, payload, signature] = token.split('.') as [string, string, string];
  assert.deepEqual(decode(header), { alg: 'HS256', typ: 'JWT' });
  assert.equal(createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url'), signature);
  return decode(payload);
}

async function importFixture(dir: string, db: string): Promise<void> {
  assert.equal(await ok(db, ['import', writeDocument(dir, marketplace(), 'fixture.json')]), 'imported 4 users and 5 listings\n');
}

// Every command is a process of its own on its own database: a group's tests can run side by side.
const PARALLEL = { concurrency: 4 };

// Each CLI run loads Souk afresh, so the fixture is imported once and its database copied per test.
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
      },
    ]);
    assert.deepEqual(query(db, 'select disabled from users where id = 4'), [{ disabled: 1 }]);
  });

  it('imports from standard input with -', async (t) => {
    const { db } = scratch(t);
    assert.equal(await ok(db, ['import', '-'], { input: JSON.stringify(marketplace()) }), 'imported 4 users and 5 listings\n');
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

  it("stores the password from standard input in WordPress 6.8's form, printing neither it nor its hash", async (t) => {
    const { db } = fixture(t);
    const out = await ok(db, ['users', 'set-password', '3'], { input: 'n3w pässword\n' });
    assert.equal(out, 'password set for user 3\n');
    const hash = storedHash(db)!;
    assert.match(hash, /^\$wp\$2y\$10\$/);
    assert.ok(!out.includes(hash) && !out.includes('n3w'));
    assert.deepEqual(await verifyPassword('n3w pässword', hash), { ok: true });
    assert.deepEqual(await verifyPassword('n3w pässword\n', hash), { ok: false }, 'the trailing newline is not part of it');
  });

  it('refuses an unknown user, an empty password and bad usage, storing nothing', async (t) => {
    const { db } = fixture(t);
    await fails(db, ['users', 'set-password', '999'], 'souk: no user with id 999\n', { input: 'secret' });
    await fails(db, ['users', 'set-password', '3'], 'souk: the password is empty: send it on standard input\n', { input: '\n' });
    await fails(db, ['users', 'set-password'], /^souk: usage: souk users set-password ID/);
    await fails(db, ['users', 'set-password', 'abc'], 'souk: ID must be a positive integer, got "abc"\n', { input: 'secret' });
    assert.equal(storedHash(db), undefined);
  });
});

describe('souk token', PARALLEL, () => {
  it('prints only a JWT for the user, signed with the stored secret, valid for a day', async (t) => {
    const { db } = fixture(t);
    const run = await souk(db, ['token', '1']);
    assert.equal(run.code, 0);
    assert.equal(run.stderr, '');
    assert.match(run.stdout, /\n$/);
    const token = run.stdout.trimEnd();
    assert.match(token, JWT);
    const secret = (await ok(db, ['settings', 'get', 'jwt_secret'])).trimEnd();
    const claims = verified(token, secret);
    // D9's claims, and a random jti so that no two tokens are the same text (a sign-out revokes one).
    assert.deepEqual(Object.keys(claims).sort(), ['exp', 'iat', 'jti', 'name', 'sub']);
    assert.match(String(claims.jti), /^[0-9a-f-]{36}$/);
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
    assert.equal(list.stdout, 'api_key=****\njwt_secret=****\nrest_api=true\n');
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
    await fails(db, ['settings', 'set', 'api_key', 'mine'], /^souk: usage: souk settings set rest_api true\|false .*\n$/);
    await fails(db, ['settings', 'get', 'nope'], 'souk: unknown setting "nope"; known: api_key, jwt_secret, rest_api\n');
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
    await fails(db, ['jwt-secret'], 'souk: usage: souk jwt-secret rotate [--grace SECONDS]\n');
    await fails(db, ['jwt-secret', 'renew'], 'souk: usage: souk jwt-secret rotate [--grace SECONDS]\n');
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
    await fails(db, ['listings', 'delete'], 'souk: usage: souk listings delete ID...\n');
    assert.equal(count(db, 'listings'), 4);
  });
});

describe('souk demo', PARALLEL, () => {
  it('prints a whole exchange that runs as printed against a real souk serve (SQLite, or PostgreSQL with TEST_DATABASE_URL)', async (t) => {
    const { db } = scratch(t);
    const database = await freshDatabase();
    let server: ServerProcess | undefined;
    t.after(async () => {
      await server?.stop();
      await database.drop();
    });
    const env = { DATABASE_URL: database.url };
    // The quick start's order: the server is running when the demo imports its marketplace.
    const started = await startServer(t, db, env);
    server = started.server;
    const base = started.base;
    const port = new URL(started.server.url).port;
    const out = await ok(db, ['demo'], { env: { ...env, PORT: port } });
    assert.ok(out.startsWith('imported 3 users and 4 listings\n'), out);
    const apiKey = (await ok(db, ['settings', 'get', 'api_key'], { env })).trimEnd();
    const secret = (await ok(db, ['settings', 'get', 'jwt_secret'], { env })).trimEnd();

    // What it prints: the demo users' passwords (this run's, marked demo-only), the API key, the
    // seller's token; never the JWT secret.
    const passwords = /^ {2}amina +(demo-[A-Za-z0-9_-]{12})\n {2}youssef +(demo-[A-Za-z0-9_-]{12})$/m.exec(out);
    assert.ok(passwords, out);
    assert.match(out, /for this demo only, generated by this run/);
    assert.ok(!out.includes(secret), 'the JWT secret is not printed');
    const commands = demoCommands(out);
    for (const command of commands.filter((c) => c.includes('curl '))) assert.ok(command.includes(`-H 'X-API-KEY: ${apiKey}'`), command);
    assert.ok(commands.some((c) => c.includes(`"password":"${passwords[1]}"`)));

    const exchange = await runDemoCommands('sh', commands, { cwd: ROOT, env: { PATH: process.env.PATH } });
    checkExchange(exchange, base);
    assert.equal(verified(exchange.vars.SELLER_TOKEN, secret).sub, '2');
    assert.equal(verified(exchange.vars.BUYER_TOKEN, secret).sub, '1');

    // Each run makes new passwords: the last run's no longer signs in, the conversation stays.
    const again = await ok(db, ['demo'], { env: { ...env, PORT: port } });
    assert.ok(!again.includes(passwords[1]!) && !again.includes(passwords[2]!), again);
    const login = (password: string) =>
      fetch(`${base}/login`, {
        method: 'POST',
        headers: { 'X-API-KEY': apiKey, 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'amina', password }),
      });
    assert.equal((await login(passwords[1]!)).status, 400);
    const newPassword = /^ {2}amina +(\S+)$/m.exec(again)![1]!;
    assert.equal((await login(newPassword)).status, 200);
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

// ---- live settings: a real server process and the CLI changing its settings ----

/** Starts `souk serve` on a free port (tools/processes.ts) with only the variables Souk reads; stopped after the test. */
async function startServer(t: TestContext, db: string, env: Record<string, string> = {}): Promise<{ server: ServerProcess; base: string }> {
  const server = await startProcess('souk serve', {
    args: [BIN, 'serve'],
    env: envFor(db, env) as Record<string, string>,
    ready: SOUK_READY,
    cwd: ROOT,
  });
  t.after(() => server.stop());
  const base = /serving the interface at (\S+)/.exec(server.output())![1]!;
  assert.equal(base, `${server.url}/wp-json/rtcl/v1`);
  return { server, base };
}

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
