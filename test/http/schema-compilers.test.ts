/**
 * The schema compilers every app of a process shares (src/http/schema-compilers.ts): a second app
 * compiles nothing, and validates and answers as the first, byte for byte.
 */
import { it } from 'node:test';
import assert from 'node:assert/strict';
import { compiledSchemas } from '../../src/http/schema-compilers.js';
import { startTestSouk, PATHS, type TestSouk } from '../helpers/souk.js';
import { LISTINGS, USERS } from '../helpers/fixtures.js';

/** A reply each compiler makes: a body refused by its schema, a toggle, a conversation started. */
async function replies(t: TestSouk): Promise<string[]> {
  const out: string[] = [];
  for (const [url, body] of [
    [PATHS.toggle, { listing_id: 'twelve' }],
    [PATHS.start, { listing_id: LISTINGS.bike, text: ['not', 'text'] }],
    [PATHS.toggle, { listing_id: LISTINGS.bike }],
    [PATHS.start, { listing_id: LISTINGS.bike, text: 'hello' }],
  ] as const) {
    const res = await t.post(url, body, t.auth(USERS.sara));
    out.push(`${res.statusCode} ${res.headers['content-type']} ${res.body}`);
  }
  // The conversation's and message's ids and times are the same in two fresh databases, but not the time itself.
  return out.map((reply) => reply.replace(/"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"/g, '"<time>"'));
}

it('a second app in the process compiles no schema and answers as the first', async () => {
  const first = await startTestSouk();
  const firstReplies = await replies(first);
  await first.close();
  const compiled = compiledSchemas();
  assert.ok(compiled > 0);

  const second = await startTestSouk();
  const secondReplies = await replies(second);
  assert.equal(compiledSchemas(), compiled, 'the second app compiled schemas of its own');
  assert.deepEqual(secondReplies, firstReplies);
  assert.match(firstReplies[0]!, /^400 /);
  assert.match(firstReplies[1]!, /^400 /);
  assert.match(firstReplies[2]!, /^200 /);
  assert.match(firstReplies[3]!, /^200 /);
});
