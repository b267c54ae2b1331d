/** `npm run settings-table`: writes the README's settings table from the declarations in src/config.ts. */
import { readFileSync, writeFileSync } from 'node:fs';
import { settingsTable } from '../src/config.js';

const README = new URL('../README.md', import.meta.url);
const START = /^<!-- settings table: .*-->$/m;
const END = '<!-- end of settings table -->';

const readme = readFileSync(README, 'utf8');
const start = START.exec(readme);
const end = readme.indexOf(END);
if (!start || end < start.index) throw new Error('README.md: the settings table markers are missing');
writeFileSync(README, `${readme.slice(0, start.index + start[0].length)}\n${settingsTable()}\n${readme.slice(end)}`);
