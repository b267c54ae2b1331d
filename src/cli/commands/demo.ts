/** souk demo : imports the demo marketplace and prints ready-to-paste curl commands. */
import { signToken } from '../../auth/jwt.js';
import { apiBase } from '../../config.js';
import type { CliContext } from '../context.js';
import { demoDocument } from '../demo-data.js';
import { importDocument } from './import.js';

export async function demo(ctx: CliContext): Promise<void> {
  await importDocument(ctx, demoDocument(ctx.config.siteUrl));
  const { apiKey, jwtSecret } = await ctx.authSettings();
  const token = signToken(jwtSecret, 1, 'amina', 86_400);
  const host = ctx.config.host.includes(':') ? `[${ctx.config.host}]` : ctx.config.host;
  const base = `http://${host}:${ctx.config.port}${apiBase(ctx.config)}`;
  const headers = `-H 'Authorization: Bearer ${token}' -H 'X-API-KEY: ${apiKey}' -H 'Content-Type: application/json'`;
  ctx.out('');
  ctx.out('Demo marketplace ready. Start the server (npm start), then as amina (user 1, token valid for a day):');
  ctx.out('');
  ctx.out("# Toggle listing 101 in amina's favourites (run it twice to add, then remove):");
  ctx.out(`curl -s -X POST '${base}/my/favourites' ${headers} -d '{"listing_id":101}'`);
  ctx.out('');
  ctx.out('# Start a conversation with the owner of listing 101:');
  ctx.out(
    `curl -s -X POST '${base}/my/chat/conversation' ${headers} -d '{"listing_id":101,"text":"Hello, is the bike still available?","temp_id":1}'`,
  );
}
