/** `npm run settings-table`: writes the settings table of docs/configuration.md from the declarations in src/config.ts. */
import { readFileSync, writeFileSync } from 'node:fs';
import { settingsTable } from '../src/config.js';

const PAGE = new URL('../docs/configuration.md', import.meta.url);
const START = /^<!-- settings table: .*-->$/m;
const END = '<!-- end of settings table -->';

const page = readFileSync(PAGE, 'utf8');
const start = START.exec(page);
const end = page.indexOf(END);
if (!start || end < start.index) throw new Error('docs/configuration.md: the settings table markers are missing');
writeFileSync(PAGE, `${page.slice(0, start.index + start[0].length)}\n${settingsTable()}\n${page.slice(end)}`);
