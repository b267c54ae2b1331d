/** The `souk` admin CLI: serve, config, migrate, import, token, settings, api-key, jwt-secret, listings, users, demo. */
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from '../config.js';
import { serve } from '../server.js';
import { CliError, withStore } from './context.js';
import { printConfig } from './commands/config.js';
import { demo } from './commands/demo.js';
import { importFile } from './commands/import.js';
import { importFromWordpress } from './commands/import-wordpress.js';
import { rotateJwtSecret } from './commands/jwt-secret.js';
import { deleteListingsCommand } from './commands/listings.js';
import { getSetting, listSettings, rotateApiKey, setSetting } from './commands/settings.js';
import { token } from './commands/token.js';
import { setPassword } from './commands/users.js';
import { listWebhooks, replayWebhooks, retryWebhooks } from './commands/webhooks.js';

const USAGE = `usage: souk COMMAND

  serve                          serve the interface (what npm start runs)
  config                         print the effective configuration (secrets masked)
  migrate                        apply pending database migrations
  import FILE|-                  upsert users and listings from a JSON document (atomic)
  import --from-wordpress mysql://USER:PASSWORD@HOST:PORT/DB
                                 copy a WordPress site (users, listings, favourites, chat) keeping ids; run again to resume
  token USER_ID [--ttl SECONDS]  print a signed JWT for a user (default lifetime 1 day, at most TOKEN_MAX_TTL_S)
  settings                       print the settings
  settings get KEY               print one setting's raw value
  settings set rest_api true|false
  api-key rotate                 generate and print a new API key
  jwt-secret rotate [--grace SECONDS]
                                 replace the JWT secret; old tokens are refused, or accepted for SECONDS
  listings delete ID...          remove listings (they leave every favourite list)
  users set-password ID          set a user's password, read from standard input
  demo                           import a demo marketplace and print curl commands
  webhooks list [--status S] [--since T] [--limit N]
                                 list webhook deliveries (pending, delivered, failed), newest first
  webhooks retry [ID...]         send failed deliveries again (all of them without ids)
  webhooks replay --since T      send again every delivery since T (2026-11-23T18:05:55Z, or 30m, 2h, 1d)

Every command uses DATABASE_URL (default sqlite:./data/souk.db).
Settings are environment variables: see the table in docs/configuration.md.`;

async function run(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'serve':
      await serve(loadConfig());
      return;
    case 'config':
      printConfig(
        (line) => process.stdout.write(`${line}\n`),
        (line) => process.stderr.write(`${line}\n`),
      );
      return;
    case 'migrate':
      return withStore(async (ctx) => ctx.out('database is up to date'));
    case 'import':
      if (rest[0] === '--from-wordpress') return withStore((ctx) => importFromWordpress(ctx, rest[1]));
      if (rest[0]?.startsWith('--from-wordpress=')) return withStore((ctx) => importFromWordpress(ctx, rest[0]!.slice(17)));
      return withStore((ctx) => importFile(ctx, rest[0]));
    case 'token': {
      const { positionals, values } = parseArgs({ args: rest, allowPositionals: true, options: { ttl: { type: 'string' } } });
      return withStore((ctx) => token(ctx, positionals[0], values.ttl));
    }
    case 'settings':
      if (rest[0] === undefined) return withStore(listSettings);
      if (rest[0] === 'get') return withStore((ctx) => getSetting(ctx, rest[1]));
      if (rest[0] === 'set') return withStore((ctx) => setSetting(ctx, rest[1], rest[2]));
      throw new CliError('usage: souk settings [get KEY | set rest_api true|false]');
    case 'api-key':
      if (rest[0] === 'rotate') return withStore(rotateApiKey);
      throw new CliError('usage: souk api-key rotate');
    case 'jwt-secret': {
      const { positionals, values } = parseArgs({ args: rest, allowPositionals: true, options: { grace: { type: 'string' } } });
      if (positionals.length === 1 && positionals[0] === 'rotate') return withStore((ctx) => rotateJwtSecret(ctx, values.grace));
      throw new CliError('usage: souk jwt-secret rotate [--grace SECONDS]');
    }
    case 'listings':
      if (rest[0] === 'delete') return withStore((ctx) => deleteListingsCommand(ctx, rest.slice(1)));
      throw new CliError('usage: souk listings delete ID...');
    case 'users':
      if (rest[0] === 'set-password' && rest.length === 2) return withStore((ctx) => setPassword(ctx, rest[1]));
      throw new CliError('usage: souk users set-password ID (the password on standard input)');
    case 'demo':
      return withStore(demo);
    case 'webhooks': {
      const { positionals, values } = parseArgs({
        args: rest,
        allowPositionals: true,
        options: { status: { type: 'string' }, since: { type: 'string' }, limit: { type: 'string' } },
      });
      const [sub, ...ids] = positionals;
      if (sub === 'list' && ids.length === 0) return withStore((ctx) => listWebhooks(ctx, values.status, values.since, values.limit));
      if (sub === 'retry') return withStore((ctx) => retryWebhooks(ctx, ids));
      if (sub === 'replay' && ids.length === 0) return withStore((ctx) => replayWebhooks(ctx, values.since));
      throw new CliError('usage: souk webhooks list [--status S] [--since T] [--limit N] | retry [ID...] | replay --since T');
    }
    case undefined:
    case 'help':
    case '--help':
    case '-h':
      process.stdout.write(`${USAGE}\n`);
      return;
    default:
      throw new CliError(`unknown command "${command}"\n${USAGE}`);
  }
}

export async function main(argv: string[]): Promise<void> {
  try {
    await run(argv);
  } catch (err) {
    if (err instanceof ConfigError) process.stderr.write(`souk: invalid setting: ${err.message}\n`);
    else if (err instanceof CliError) process.stderr.write(`souk: ${err.message}\n`);
    else if (err instanceof TypeError && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS'))
      process.stderr.write(`souk: ${err.message}\n`);
    else process.stderr.write(`souk: ${(err as Error)?.message ?? String(err)}\n`);
    process.exitCode = err instanceof CliError ? err.exitCode : 1;
  }
}
