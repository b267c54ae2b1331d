/** souk serve [--port N] [--host ADDRESS]: serves the interface; the flags override PORT and HOST for this run. */
import { ConfigError, loadConfig, type Config } from '../../config.js';
import { USAGE_EXIT, type Command } from '../command.js';
import { CliError } from '../context.js';
import { cliIo } from '../io.js';

/** Each flag and the setting it overrides: validated by that setting's own parser. */
const OVERRIDES = { port: 'PORT', host: 'HOST' } as const;

export function configWithOverrides(flags: Partial<Record<string, string>>): Config {
  const env = { ...cliIo().env };
  for (const [flag, name] of Object.entries(OVERRIDES)) if (flags[flag] !== undefined) env[name] = flags[flag];
  try {
    return loadConfig(env);
  } catch (err) {
    // The setting's message, naming the flag the value came from.
    const flag = Object.entries(OVERRIDES).find(([f, name]) => flags[f] !== undefined && (err as Error).message.startsWith(`${name} `));
    if (!(err instanceof ConfigError) || !flag) throw err;
    throw new CliError(`serve: --${flag[0]}${err.message.slice(flag[1].length)}; see souk serve --help`, USAGE_EXIT);
  }
}

export const serveCommand: Command = {
  name: 'serve',
  summary: 'serve the interface (what npm start runs)',
  about:
    'Opens the database DATABASE_URL names (creating its tables or migrating them), then serves the interface on HOST:PORT until SIGTERM or SIGINT. Every other setting comes from the environment (see souk config).',
  options: {
    port: { value: 'N', help: 'listen on this TCP port instead of PORT (0 picks a free port)' },
    host: { value: 'ADDRESS', help: 'listen on this address instead of HOST (0.0.0.0 or :: to accept other hosts)' },
  },
  examples: ['souk serve', 'souk serve --port 8081 --host 0.0.0.0'],
  run: async ({ options }) => {
    const config = configWithOverrides(options);
    // Loaded only to serve: the server's modules take longer to load than the CLI's help.
    const { serve } = await import('../../server.js');
    await serve(config);
  },
};
