/** souk token USER_ID [--ttl SECONDS] : prints a signed JWT for the user, and nothing else. */
import { signToken } from '../../auth/jwt.js';
import { CliError, type CliContext } from '../context.js';

const DAY = 86_400;

function positiveInteger(raw: string | undefined, what: string): number {
  if (raw === undefined || !/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new CliError(`${what} must be a positive integer, got "${raw ?? ''}"`);
  }
  return Number(raw);
}

export async function token(ctx: CliContext, userIdArg: string | undefined, ttlArg: string | undefined): Promise<void> {
  if (userIdArg === undefined) throw new CliError('usage: souk token USER_ID [--ttl SECONDS]');
  const userId = positiveInteger(userIdArg, 'USER_ID');
  const ttl = ttlArg === undefined ? DAY : positiveInteger(ttlArg, '--ttl');
  const user = await ctx.store.repos.users.findById(userId);
  if (!user) throw new CliError(`no user with id ${userId}`);
  if (user.disabled) throw new CliError(`user ${userId} is disabled; a token for it would be refused`);
  const { jwtSecret } = await ctx.authSettings();
  ctx.out(signToken(jwtSecret, user.id, user.login, ttl));
}
