/**
 * Writes docs/openapi.json: the OpenAPI document the server generates from its route schemas,
 * with the default settings. `npm run openapi` writes it; `npm run openapi -- --check` (and the
 * test suite) fails when the committed file is stale.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { loadConfig } from '../src/config.js';
import { createSouk } from '../src/server.js';

export const OPENAPI_FILE = fileURLToPath(new URL('../docs/openapi.json', import.meta.url));

/** The document as the server makes it, on a throw-away in-memory database, formatted for diffs. */
export async function generateOpenApi(): Promise<string> {
  const souk = await createSouk(loadConfig({ DATABASE_URL: 'sqlite::memory:', LOG_LEVEL: 'silent' }));
  try {
    await souk.app.ready();
    return `${JSON.stringify(souk.app.swagger(), null, 2)}\n`;
  } finally {
    await souk.close();
  }
}

async function main(args: string[]): Promise<void> {
  const generated = await generateOpenApi();
  if (args.includes('--check')) {
    let committed = '';
    try {
      committed = readFileSync(OPENAPI_FILE, 'utf8');
    } catch {
      // missing counts as stale
    }
    if (committed !== generated) {
      process.stderr.write('docs/openapi.json is stale: run npm run openapi\n');
      process.exitCode = 1;
    }
    return;
  }
  writeFileSync(OPENAPI_FILE, generated);
  process.stdout.write(`wrote ${OPENAPI_FILE}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main(process.argv.slice(2));
