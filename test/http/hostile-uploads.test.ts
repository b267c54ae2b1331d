/**
 * Hostile upload forms (test/helpers/hostile-forms.ts) on Souk's own databases: SQLite, and
 * PostgreSQL when TEST_DATABASE_URL names one. HOSTILE_SCALE multiplies the runs; FC_SEED picks the seed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LISTINGS, SITE_URL, USERS } from '../helpers/fixtures.js';
import { startTestSouk } from '../helpers/souk.js';
import { HOSTILE_FORM_ENV, hostileUploadForms } from '../helpers/hostile-forms.js';

const filesDir = await mkdtemp(join(tmpdir(), 'souk-hostile-forms-'));
const t = await startTestSouk({ ...HOSTILE_FORM_ENV, FILES_DIR: filesDir });
const port = Number(new URL(await t.listen()).port);
const started = await t.start(USERS.amina, { listing_id: LISTINGS.bike, text: 'Hello' });
assert.equal(started.statusCode, 200, started.body);

describe('hostile upload forms', async () => {
  await hostileUploadForms(
    {
      t,
      port,
      filesDir,
      filesUrl: `${SITE_URL}/files`,
      auth: (user) => [
        ['X-API-KEY', t.apiKey],
        ['Authorization', `Bearer ${t.token(user)}`],
      ],
      users: [USERS.amina, USERS.youssef, USERS.sara],
      conversation: started.json().con_id,
      listings: Object.values(LISTINGS),
      async namedFiles() {
        const rows = await t.souk.store.db.selectFrom('messages').select('attachments').where('attachments', 'is not', null).execute();
        const files = rows.flatMap((r) => JSON.parse(r.attachments!) as { url: string; thumbnail?: string }[]);
        return new Set(files.flatMap((f) => [f.url, ...(f.thumbnail ? [f.thumbnail] : [])]));
      },
    },
    it,
  );
});
