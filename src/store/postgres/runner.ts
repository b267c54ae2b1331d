/**
 * Runs the prepared queries (prepared.ts) on PostgreSQL through pg itself, as named statements.
 *
 * Kysely sends every query unnamed: PostgreSQL then parses and plans it again on every call. A
 * named statement is parsed once per connection and only bound and executed after that, so a
 * repeated query costs the server no parse and no plan. Behind a pooler that hands one client's transactions to
 * different server connections (PgBouncer in transaction mode, unless 1.21+ tracks the statements),
 * a statement prepared on one is missing on the next: DB_PREPARED_STATEMENTS=false sends them
 * unnamed, as before.
 */
import type { CompiledQuery, Kysely, QueryResult } from 'kysely';
import type { QueryResult as PgResult } from 'pg';
import type { QueryRunner } from '../common/prepared.js';
import type { Database } from '../common/schema.js';

/** A pg Pool or one of its checked-out clients. */
export interface PgQueryable {
  query(config: { text: string; values: unknown[]; name?: string; rowMode?: 'array' }): Promise<PgResult>;
}

const COUNTS_ROWS = new Set(['INSERT', 'UPDATE', 'DELETE', 'MERGE']);

/** The result in Kysely's form, as its PostgreSQL driver gives it. */
export function asKyselyResult<O>({ command, rowCount, rows }: PgResult): QueryResult<O> {
  return {
    numAffectedRows: COUNTS_ROWS.has(command) ? BigInt(rowCount ?? 0) : undefined,
    rows: (rows ?? []) as O[],
  };
}

/**
 * @param db compiles the query templates (any Kysely instance of the PostgreSQL dialect).
 * @param named whether prepared queries are sent as named statements.
 */
export function postgresRunner(db: Kysely<Database>, target: PgQueryable, named: boolean): QueryRunner {
  return {
    db,
    async execute<O>(query: CompiledQuery<O>, name?: string): Promise<QueryResult<O>> {
      return asKyselyResult<O>(await target.query(statementConfig(query, named ? name : undefined)));
    },
    async executeArrays(query: CompiledQuery, name?: string): Promise<unknown[][]> {
      return (await target.query(statementConfig(query, named ? name : undefined, true))).rows as unknown[][];
    },
  };
}

/** pg's config for the query: as the named statement `name` when there is one; with `arrays`, its rows as arrays of values. */
export function statementConfig(query: CompiledQuery, name: string | undefined, arrays = false) {
  const values = query.parameters as unknown[];
  const config = name !== undefined ? { name, text: query.sql, values } : { text: query.sql, values };
  return arrays ? { ...config, rowMode: 'array' as const } : config;
}
