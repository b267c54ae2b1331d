/** Writes docs/import-schema.json: the JSON Schema of `souk import` documents, from the code's own schema. */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ImportDocument } from '../src/cli/import-document.js';

export function importSchemaJson(): string {
  const schema = {
    $schema: 'http://json-schema.org/draft-07/schema#',
    $id: 'https://souk.dev/schemas/import-document.json',
    ...ImportDocument,
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  writeFileSync(new URL('../docs/import-schema.json', import.meta.url), importSchemaJson());
  console.log('wrote docs/import-schema.json');
}
