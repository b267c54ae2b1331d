/** souk config: the effective configuration, one NAME=value line per setting, secrets masked. */
import { effectiveSettings, loadConfig } from '../../config.js';
import type { Command } from '../command.js';
import { cliIo } from '../io.js';
import { terminalSafe } from '../terminal.js';

/** Values with spaces, quotes or nothing at all are printed as JSON strings so that they stay visible. */
function shown(value: string): string {
  return /^[\w@%+=:,./#&;{}$*-]+$/.test(value) ? value : JSON.stringify(value);
}

export function printConfig(out: (line: string) => void, err: (line: string) => void): void {
  const config = loadConfig(cliIo().env);
  for (const [name, value] of effectiveSettings(config)) out(`${name}=${shown(value)}`);
  if (!config.apiKey || !config.jwtSecret) {
    err('note: an unset API_KEY or JWT_SECRET (and its _FILE) means the value stored in the database is used (see: souk settings)');
  }
}

export const configCommand: Command = {
  name: 'config',
  summary: 'print the effective configuration (secrets masked)',
  about:
    'Prints every setting Souk reads from the environment as NAME=value, with its default where unset: secrets as ****, passwords in addresses masked. The table in docs/configuration.md says what each one means.',
  examples: ['souk config', 'PORT=8081 souk config | grep PORT'],
  run: async () =>
    printConfig(
      (line) => cliIo().stdout.write(`${terminalSafe(line)}\n`),
      (line) => cliIo().stderr.write(`${terminalSafe(line)}\n`),
    ),
};
