/**
 * souk token USER_ID [--ttl SECONDS] : prints a signed JWT for the user, and nothing else.
 * The lifetime is at most TOKEN_MAX_TTL_S: servers refuse a longer one.
 */
import { issueUserToken } from '../../domain/operator/users.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { cliChange, operatorOf, refusal } from '../operator.js';

const DAY = 86_400;

export function positiveInteger(raw: string | undefined, what: string): number {
  if (raw === undefined || !/^[1-9]\d{0,15}$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
    throw new CliError(`${what} must be a positive integer, got "${raw ?? ''}"`);
  }
  return Number(raw);
}

export async function token(ctx: CliContext, userIdArg: string, ttlArg: string | undefined): Promise<void> {
  const userId = positiveInteger(userIdArg, 'USER_ID');
  const maxTtl = ctx.config.tokenMaxTtlS;
  const ttl = ttlArg === undefined ? Math.min(DAY, maxTtl) : positiveInteger(ttlArg, '--ttl');
  if (ttl > maxTtl)
    throw new CliError(`--ttl must be at most ${maxTtl} seconds (TOKEN_MAX_TTL_S): servers refuse a longer-lived token, got ${ttl}`);
  const result = await issueUserToken(operatorOf(ctx), cliChange(undefined), userId, ttl);
  if (!result.ok) throw refusal(result, userId);
  ctx.out(result.token);
}

export const tokenCommand: Command = {
  name: 'token',
  summary: 'print a signed JWT for a user',
  about:
    "Prints a token for the user, signed with the stored JWT secret (or JWT_SECRET), and nothing else: for scripts and for trying the interface. A disabled user's token would be refused, so none is issued.",
  args: [{ name: 'USER_ID', help: "the user's id" }],
  options: { ttl: { value: 'SECONDS', help: "the token's lifetime (default one day; at most TOKEN_MAX_TTL_S)" } },
  examples: ['souk token 7', 'souk token 7 --ttl 3600'],
  run: ({ args: [userId], options }) => withStore((ctx) => token(ctx, userId!, options.ttl)),
};
