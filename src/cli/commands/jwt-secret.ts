/**
 * souk jwt-secret rotate [--grace SECONDS]: replaces the secret that signs and verifies tokens.
 * Without a grace, tokens signed with the old secret are refused as soon as a server polls its
 * settings; with one, they are accepted until the grace ends (tokens are then signed with the new
 * secret only). A second rotation ends the first one's grace: only one previous secret is kept.
 */
import { ensureSettings, formatPreviousSecret, newSecret, SETTING } from '../../auth/settings.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';
import { positiveInteger } from './token.js';

function graceSeconds(raw: string | undefined, maxTtl: number): number {
  if (raw === undefined || raw === '0') return 0;
  const grace = positiveInteger(raw, '--grace');
  // No token lives longer than TOKEN_MAX_TTL_S, so no token needs the old secret for longer.
  if (grace > maxTtl) throw new CliError(`--grace must be at most ${maxTtl} seconds (TOKEN_MAX_TTL_S), got ${grace}`);
  return grace;
}

export async function rotateJwtSecret(ctx: CliContext, graceArg: string | undefined, nowMs: number = Date.now()): Promise<void> {
  const grace = graceSeconds(graceArg, ctx.config.tokenMaxTtlS);
  const all = await ensureSettings(ctx.store.settings);
  const old = all[SETTING.jwtSecret] ?? '';
  const previous = grace > 0 && old.trim() !== '' ? { secret: old, untilMs: nowMs + grace * 1000 } : undefined;
  // The previous secret is stored first: a server polling between the two writes sees the old
  // secret twice, never a new secret without the grace of the old one.
  await ctx.store.settings.set(SETTING.jwtSecretPrevious, formatPreviousSecret(previous));
  await ctx.store.settings.set(SETTING.jwtSecret, newSecret());
  ctx.out(
    previous
      ? `jwt_secret rotated; tokens signed with the previous secret are accepted until ${new Date(previous.untilMs).toISOString()}`
      : 'jwt_secret rotated; tokens signed with the previous secret are refused',
  );
  if (ctx.config.jwtSecret) ctx.err('note: JWT_SECRET is set in the environment; servers started with it keep using that secret');
}

export const jwtSecretCommand: Command = {
  name: 'jwt-secret rotate',
  summary: 'replace the JWT secret',
  about:
    "Stores a new random JWT secret (never printed). Tokens signed with the old one are refused as soon as servers re-read the settings, or with --grace accepted for that many seconds more. A second rotation ends the first one's grace.",
  options: { grace: { value: 'SECONDS', help: "how long the old secret's tokens stay valid (at most TOKEN_MAX_TTL_S; default 0)" } },
  examples: ['souk jwt-secret rotate', 'souk jwt-secret rotate --grace 3600'],
  run: ({ options }) => withStore((ctx) => rotateJwtSecret(ctx, options.grace)),
};
