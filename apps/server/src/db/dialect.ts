import { PostgresAdapter, type Kysely } from "kysely";

/**
 * The SQL dialect of a store. Tessera runs the same Kysely queries on the embedded SQLite store
 * and on PostgreSQL (`DATABASE_URL`); code that needs dialect-specific SQL asks the database
 * itself (no configuration to thread through):
 *
 *   if (isPostgres(db)) { ...jsonb / tsvector / pgvector... } else { ...json1 / FTS5 / sqlite-vec... }
 *
 * Conventions that keep queries portable (docs/deployment.md, "Writing portable SQL"):
 * - timestamps are ISO-8601 text, booleans are integers 0/1, JSON columns come back as strings on
 *   both dialects (the PostgreSQL pool parses no json/jsonb), `count(*)` comes back as a number;
 * - `order by rowid` works on both (PostgreSQL tables that need it carry an identity column `rowid`);
 * - write portable SQL (no `json_each`, `group by` lists every selected column, no `LIKE` for
 *   case-insensitive matching), or branch with `isPostgres(db)`.
 */
export type SqlDialect = "sqlite" | "postgres";

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Kysely instance, whatever its table types
export function dialectOf(db: Kysely<any>): SqlDialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? "postgres" : "sqlite";
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any Kysely instance, whatever its table types
export const isPostgres = (db: Kysely<any>): boolean => dialectOf(db) === "postgres";
