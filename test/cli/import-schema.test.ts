import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { importSchemaJson } from '../../scripts/import-schema.js';

it('docs/import-schema.json is what the code validates imports with (run npm run import-schema when this fails)', () => {
  assert.equal(readFileSync(new URL('../../docs/import-schema.json', import.meta.url), 'utf8'), importSchemaJson());
});

it('an import document with a NUL character anywhere names its path and imports nothing', async () => {
  const { parseImportDocument } = await import('../../src/cli/import-document.js');
  const parsed = parseImportDocument({
    users: [
      { id: 1, login: 'a' },
      { id: 2, login: 'b', name: 'x\u0000y' },
    ],
  });
  assert.deepEqual(parsed, { ok: false, path: 'users[1].name', problem: 'must not contain the NUL character (U+0000)' });
});
