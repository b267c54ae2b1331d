/** souk listings delete ID... : removes listings; favourites drop them, conversations stay. */
import { deleteListings } from '../../domain/catalog.js';
import { CliError, type CliContext } from '../context.js';

export async function deleteListingsCommand(ctx: CliContext, args: string[]): Promise<void> {
  if (args.length === 0) throw new CliError('usage: souk listings delete ID...');
  const bad = args.find((a) => !/^[1-9]\d{0,15}$/.test(a));
  if (bad !== undefined) throw new CliError(`listing ids must be positive integers, got "${bad}"`);
  const { deleted, missing } = await deleteListings(ctx.store, [...new Set(args.map(Number))]);
  ctx.out(`deleted ${deleted.length} listing${deleted.length === 1 ? '' : 's'}${deleted.length ? `: ${deleted.join(' ')}` : ''}`);
  if (missing.length) throw new CliError(`no listing with id ${missing.join(', ')}`);
}
