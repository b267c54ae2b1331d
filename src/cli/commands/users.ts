/**
 * souk users set-password ID : reads a password from standard input (one trailing newline is not
 * part of it) and stores it in WordPress 6.8+'s form, which sign-in and WordPress itself verify.
 * Prints neither the password nor its hash.
 */
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { readStdin } from './import.js';
import { positiveInteger } from './token.js';

export async function setPassword(ctx: CliContext, userIdArg: string): Promise<void> {
  const userId = positiveInteger(userIdArg, 'ID');
  // Loaded when used, as the CLI's other dear modules: every other command starts without the password threads.
  const { hashPassword, MAX_PASSWORD_BYTES } = await import('../../auth/passwords.js');
  const password = (await readStdin()).replace(/\r?\n$/, '');
  if (password === '') throw new CliError('the password is empty: send it on standard input');
  if (Buffer.byteLength(password, 'utf8') > MAX_PASSWORD_BYTES)
    throw new CliError(`the password is longer than ${MAX_PASSWORD_BYTES} bytes`);
  if (!(await ctx.store.accounts.setPasswordHash(userId, await hashPassword(password)))) throw new CliError(`no user with id ${userId}`);
  ctx.out(`password set for user ${userId}`);
}

export const usersSetPasswordCommand: Command = {
  name: 'users set-password',
  summary: "set a user's password, read from standard input",
  about:
    "Reads the password on standard input (one trailing newline is not part of it) and stores it in WordPress 6.8's form, which sign-in and WordPress both verify. Prints neither the password nor its hash.",
  args: [{ name: 'ID', help: "the user's id" }],
  examples: [`printf '%s' "$PASS" | souk users set-password 7`],
  run: ({ args: [id] }) => withStore((ctx) => setPassword(ctx, id!)),
};
