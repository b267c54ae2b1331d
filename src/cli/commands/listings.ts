/** souk listings delete ID... : removes listings; favourites drop them, conversations stay. */
import { deleteListings } from '../../domain/operator/listings.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { cliChange, operatorOf, REASON_OPTION, refusal } from '../operator.js';

export async function deleteListingsCommand(ctx: CliContext, args: string[], reason?: string): Promise<void> {
  const bad = args.find((a) => !/^[1-9]\d{0,15}$/.test(a));
  if (bad !== undefined) throw new CliError(`listing ids must be positive integers, got "${bad}"`);
  const result = await deleteListings(operatorOf(ctx), cliChange(reason), [...new Set(args.map(Number))]);
  if (!result.ok) throw refusal(result, 0);
  const { deleted, missing } = result;
  ctx.out(`deleted ${deleted.length} listing${deleted.length === 1 ? '' : 's'}${deleted.length ? `: ${deleted.join(' ')}` : ''}`);
  if (missing.length) throw new CliError(`no listing with id ${missing.join(', ')}`);
}

export const listingsDeleteCommand: Command = {
  name: 'listings delete',
  summary: 'remove listings',
  about:
    'Removes the listings; they leave every favourite list, and their conversations stay. Deletes those that exist and names those that do not (exit 1).',
  args: [{ name: 'ID', help: "a listing's id", repeats: true }],
  options: REASON_OPTION,
  examples: ['souk listings delete 101 102'],
  run: ({ args, options }) => withStore((ctx) => deleteListingsCommand(ctx, args, options.reason)),
};
