/** The Node.js flags `npm start` gives Souk (package.json), so the bench and the soak run what users run. */
import { readFileSync } from 'node:fs';

export function npmStartFlags(): string[] {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { scripts: { start: string } };
  return pkg.scripts.start.split(/\s+/).filter((word) => word.startsWith('--'));
}
