/**
 * One statement on a connection of its own to a PostgreSQL server, closed whatever happens: how the
 * tests and the benchmark create and drop the schemas they run in.
 */
import pg from 'pg';

export async function onServer(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}
