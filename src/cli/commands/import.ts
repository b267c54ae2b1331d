/** souk import FILE|- : upserts users and listings from one JSON document, atomically. */
import { readFile } from 'node:fs/promises';
import { importCatalog } from '../../domain/catalog.js';
import { CliError, type CliContext } from '../context.js';
import { parseImportDocument } from '../import-document.js';

/** All of standard input, as text. */
export async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
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

export async function importFile(ctx: CliContext, source: string | undefined): Promise<void> {
  if (!source) throw new CliError('usage: souk import FILE (or - for standard input)');
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
  const result = await importCatalog(ctx.store, parsed.catalog);
  if (!result.ok) throw new CliError(`${result.path}: ${result.problem} (nothing was imported)`);
  ctx.out(`imported ${result.users} users and ${result.listings} listings`);
}
