/** souk migrate: applies pending migrations (withStore migrates before every command). */
import type { Command } from '../command.js';
import { withStore } from '../context.js';

export const migrateCommand: Command = {
  name: 'migrate',
  summary: 'apply pending database migrations',
  about:
    "Creates Souk's tables in the database DATABASE_URL names, or brings them up to date. souk serve does this on start too; run it alone before starting several instances.",
  examples: ['souk migrate', 'DATABASE_URL=postgres://souk@127.0.0.1:5432/souk souk migrate'],
  run: () => withStore(async (ctx) => ctx.out('database is up to date')),
};
