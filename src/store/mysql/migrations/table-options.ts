/** What every migration of Souk's own MySQL tables writes the same way. */
import { sql } from 'kysely';

export const TABLE_OPTIONS = sql.raw('engine=InnoDB default charset=utf8mb4 collate=utf8mb4_bin');

/** An index's name, after its table's, as the first migration names them. */
export const key = (table: string, name: string) => sql.id(`${table}_${name}`);
