/**
 * Hostile upload forms (test/helpers/hostile-forms.ts) on a WordPress site's tables (MariaDB), its
 * files in the site's uploads folder. HOSTILE_SCALE multiplies the runs; FC_SEED picks the seed.
 */
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestSouk } from '../../helpers/souk.js';
import { HOSTILE_FORM_ENV, hostileUploadForms } from '../../helpers/hostile-forms.js';
import { mysqlReachable, SITE_LISTINGS, SITE_LOGINS, SITE_USERS, wordpressDatabase } from '../../helpers/wordpress.js';

const JWT_SECRET = 'souk-hostile-forms-secret-0123456789abcdef';
const UPLOADS_URL = 'http://127.0.0.1:8090/wp-content/uploads/classified-listing';
const skip = mysqlReachable() || process.env.CI === 'true' ? false : 'MariaDB is not reachable on 127.0.0.1:3306';

describe('hostile upload forms on the site tables', { skip }, async () => {
  if (skip) return;
  const site = await wordpressDatabase('wordpress-seeded.sql');
  const filesDir = await mkdtemp(join(tmpdir(), 'souk-wp-hostile-forms-'));
  const t = await startTestSouk(
    { ...HOSTILE_FORM_ENV, DATABASE_URL: site.url, JWT_SECRET, FILES_DIR: filesDir, FILES_URL: UPLOADS_URL },
    null,
  );
  const port = Number(new URL(await t.listen()).port);
  const token = (user: number) => t.token(user, { login: SITE_LOGINS[user] });
  const started = await t.start(SITE_USERS.alice, { listing_id: SITE_LISTINGS.iphone, text: 'Hello' });
  assert.equal(started.statusCode, 200, started.body);
  await hostileUploadForms(
    {
      t,
      port,
      filesDir,
      filesUrl: UPLOADS_URL,
      auth: (user) => [
        ['X-API-KEY', t.apiKey],
        ['Authorization', `Bearer ${token(user)}`],
      ],
      users: Object.values(SITE_USERS),
      conversation: started.json().con_id,
      listings: Object.values(SITE_LISTINGS),
      async namedFiles() {
        const rows = await site.query<{ attachments: unknown }>(
          'select attachments from wp_rtcl_conversation_messages where attachments is not null',
        );
        const files = rows.flatMap(
          (r) => (typeof r.attachments === 'string' ? JSON.parse(r.attachments) : r.attachments) as { url: string; thumbnail?: string }[],
        );
        return new Set((files ?? []).flatMap((f) => [f.url, ...(f.thumbnail ? [f.thumbnail] : [])]));
      },
    },
    it,
  );
  it('closes', async () => {
    await t.close();
    await site.drop();
  });
});
