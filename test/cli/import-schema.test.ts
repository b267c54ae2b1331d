import { it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { importSchemaJson } from '../../scripts/import-schema.js';

it('docs/import-schema.json is what the code validates imports with (run npm run import-schema when this fails)', () => {
  assert.equal(readFileSync(new URL('../../docs/import-schema.json', import.meta.url), 'utf8'), importSchemaJson());
});
