/** souk config: the effective configuration, one NAME=value line per setting, secrets masked. */
import { effectiveSettings, loadConfig } from '../../config.js';

/** Values with spaces, quotes or nothing at all are printed as JSON strings so that they stay visible. */
function shown(value: string): string {
  return /^[\w@%+=:,./#&;{}$*-]+$/.test(value) ? value : JSON.stringify(value);
}

export function printConfig(out: (line: string) => void, err: (line: string) => void): void {
  const config = loadConfig();
  for (const [name, value] of effectiveSettings(config)) out(`${name}=${shown(value)}`);
  if (!config.apiKey || !config.jwtSecret) {
    err('note: an unset API_KEY or JWT_SECRET (and its _FILE) means the value stored in the database is used (see: souk settings)');
  }
}
