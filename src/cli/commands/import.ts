/** souk import FILE|- : upserts users and listings from one JSON document, atomically. */
import { readFile } from 'node:fs/promises';
import { importDocument as importCatalog } from '../../domain/operator/listings.js';
import { usageError, type Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { cliIo } from '../io.js';
import { parseImportDocument } from '../import-document.js';
import { cliChange, operatorOf, refusal } from '../operator.js';

/** All of standard input, as text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of cliIo().stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}

const readSource = (source: string): Promise<string> => (source === '-' ? readStdin() : readFile(source, 'utf8'));

/**
 * Where JSON.parse stopped, without its message: V8 quotes the text around the fault, and the
 * document may hold password hashes, which are never printed.
 */
function parsePosition(err: unknown): string {
  const position = /position (\d+)/.exec((err as Error).message)?.[1];
  return position === undefined ? '' : ` (at character ${position})`;
}

export async function importFile(ctx: CliContext, source: string): Promise<void> {
  let text: string;
  try {
    text = await readSource(source);
  } catch (err) {
    throw new CliError(`cannot read ${source}: ${(err as Error).message}`);
  }
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    throw new CliError(`${source === '-' ? 'standard input' : source} is not valid JSON${parsePosition(err)}`);
  }
  await importDocument(ctx, document);
}

export async function importDocument(ctx: CliContext, document: unknown): Promise<void> {
  const parsed = parseImportDocument(document);
  if (!parsed.ok) throw new CliError(`${parsed.path}: ${parsed.problem} (nothing was imported)`);
  const result = await importCatalog(operatorOf(ctx), cliChange(undefined), parsed.catalog);
  if (!result.ok) throw refusal(result, 0);
  ctx.out(`imported ${result.users} users and ${result.listings} listings`);
}

export const importCommand: Command = {
  name: 'import',
  summary: 'upsert users and listings from a JSON document, or copy a WordPress site',
  about:
    'Upserts users and listings by id from one JSON document (docs/import-schema.json), all or nothing: a document with one bad entry imports nothing and names the entry. With --from-wordpress, copies a WordPress site with Classified Listing (users with their password hashes, listings, favourites, blocks, chat) keeping its ids; running it again writes only what changed and finishes a run cut short.',
  args: [{ name: 'FILE|-', help: 'the JSON document, or - to read it from standard input', optional: true }],
  options: {
    'from-wordpress': { value: 'URL', help: 'copy the WordPress site whose database is at URL (mysql://USER:PASSWORD@HOST:PORT/DB)' },
  },
  examples: ['souk import marketplace.json', 'souk import --from-wordpress mysql://wp:secret@127.0.0.1:3306/wordpress'],
  run: ({ args: [source], options }) => {
    const site = options['from-wordpress'];
    if (site !== undefined && source !== undefined) throw usageError('import', 'give a FILE or --from-wordpress, not both');
    if (site !== undefined) {
      // With the MySQL driver it loads, only when a site is copied.
      return withStore(async (ctx) => (await import('./import-wordpress.js')).importFromWordpress(ctx, site));
    }
    if (source === undefined) throw usageError('import', 'missing FILE|- (or --from-wordpress)');
    return withStore((ctx) => importFile(ctx, source));
  },
};
