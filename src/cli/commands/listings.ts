/** souk listings delete ID... : removes listings; favourites drop them, conversations stay. */
import { deleteListings } from '../../domain/catalog.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';

export async function deleteListingsCommand(ctx: CliContext, args: string[]): Promise<void> {
  const bad = args.find((a) => !/^[1-9]\d{0,15}$/.test(a));
  if (bad !== undefined) throw new CliError(`listing ids must be positive integers, got "${bad}"`);
  const { deleted, missing } = await deleteListings(ctx.store, [...new Set(args.map(Number))]);
  ctx.out(`deleted ${deleted.length} listing${deleted.length === 1 ? '' : 's'}${deleted.length ? `: ${deleted.join(' ')}` : ''}`);
  if (missing.length) throw new CliError(`no listing with id ${missing.join(', ')}`);
}

export const listingsDeleteCommand: Command = {
  name: 'listings delete',
  summary: 'remove listings',
  about:
    'Removes the listings; they leave every favourite list, and their conversations stay. Deletes those that exist and names those that do not (exit 1).',
  args: [{ name: 'ID', help: "a listing's id", repeats: true }],
  examples: ['souk listings delete 101 102'],
  run: ({ args }) => withStore((ctx) => deleteListingsCommand(ctx, args)),
};
