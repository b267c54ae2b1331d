/** souk server-keys create|list|revoke: the server API's keys (docs/server-api.md). */
import { newServerKey, serverKeyDigest } from '../../auth/server-keys.js';
import { SERVER_KEY_NAME } from '../../domain/server-keys.js';
import type { Command } from '../command.js';
import { CliError, withStore, type CliContext } from '../context.js';

const iso = (ms: number | null) => (ms === null ? 'never' : new Date(ms).toISOString());

function checkedName(name: string): string {
  if (!SERVER_KEY_NAME.test(name))
    throw new CliError(`NAME must be letters, digits, ".", "_" and "-" (at most 100, starting with a letter or digit), got "${name}"`);
  return name;
}

export async function createServerKey(ctx: CliContext, nameArg: string): Promise<void> {
  const name = checkedName(nameArg);
  const key = newServerKey();
  if (!(await ctx.store.serverKeys.add(name, serverKeyDigest(key), Date.now())))
    throw new CliError(`a server key named ${name} exists: revoke it first, or choose another name`);
  // The key itself, once: only its digest is stored.
  ctx.out(key);
  ctx.err(`server key ${name} created: keep it now, it is not shown again (send it as Authorization: Bearer ...)`);
}

export async function listServerKeys(ctx: CliContext): Promise<void> {
  ctx.out('name\tcreated\tlast used');
  for (const k of await ctx.store.serverKeys.list()) ctx.out([k.name, iso(k.createdAt), iso(k.lastUsedAt)].join('\t'));
}

export async function revokeServerKey(ctx: CliContext, nameArg: string): Promise<void> {
  const name = checkedName(nameArg);
  if (!(await ctx.store.serverKeys.remove(name))) throw new CliError(`no server key named ${name}`);
  ctx.out(`server key ${name} revoked: every server refuses it within SETTINGS_REFRESH_MS`);
}

export const serverKeysCommands: Command[] = [
  {
    name: 'server-keys create',
    summary: 'make a key for the server API; printed once',
    about:
      "Makes a key for the server API (docs/server-api.md), for a marketplace's own back end: prints it once on standard output (sk_...), and stores only its SHA-256. Send it as `Authorization: Bearer sk_...` to the routes under SERVER_API_PREFIX. Every change made with it is written to the audit log under its NAME.",
    args: [{ name: 'NAME', help: 'what the key is for, as the audit log names it: letters, digits, ".", "_", "-"' }],
    examples: ['souk server-keys create backend', 'souk server-keys create backend > backend.key'],
    run: ({ args: [name] }) => withStore((ctx) => createServerKey(ctx, name!)),
  },
  {
    name: 'server-keys list',
    summary: 'list the server keys: name, created, last used',
    about:
      'Lists the server keys, one a line separated by tabs: name, when made, when last used (written at most once a minute per server). The keys themselves are not kept.',
    examples: ['souk server-keys list'],
    run: () => withStore((ctx) => listServerKeys(ctx)),
  },
  {
    name: 'server-keys revoke',
    summary: 'revoke a server key',
    about: 'Deletes the key: every server refuses it (401) within SETTINGS_REFRESH_MS. Its audit rows stay.',
    args: [{ name: 'NAME', help: "the key's name (souk server-keys list shows them)" }],
    examples: ['souk server-keys revoke backend'],
    run: ({ args: [name] }) => withStore((ctx) => revokeServerKey(ctx, name!)),
  },
];
