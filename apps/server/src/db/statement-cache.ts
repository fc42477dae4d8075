import type SQLite from "better-sqlite3";
import type { SqliteDatabase, SqliteStatement } from "kysely";

/** Distinct SQL texts kept compiled (least recently used dropped first). */
export const STATEMENT_CACHE_SIZE = 500;

/**
 * The embedded connection as Kysely's SqliteDialect sees it, with its compiled statements reused:
 * Kysely's driver prepares every query it runs (`begin`, `commit` and each select included), and
 * compiling costs more than running most of them (bench, 100K-record import: `prepare` was 1.2 ms of
 * each 256-record batch). Statements are keyed by their SQL text (the parameters are bound per run);
 * one still iterating (a streamed select) is never handed out twice: the caller gets a fresh one.
 * SQLite recompiles a cached statement by itself when the schema changes (e.g. a migration).
 */
export function withStatementCache(sqlite: SQLite.Database, size = STATEMENT_CACHE_SIZE): SqliteDatabase & { cached(): number } {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare: (sql: string): SqliteStatement => {
      const hit = cache.get(sql);
      if (hit) {
        if (hit.busy) return sqlite.prepare(sql) as unknown as SqliteStatement;
        // Most recently used last: Map iteration order is insertion order.
        cache.delete(sql);
        cache.set(sql, hit);
        return hit as unknown as SqliteStatement;
      }
      const statement = sqlite.prepare(sql);
      cache.set(sql, statement);
      if (cache.size > size) cache.delete(cache.keys().next().value!);
      return statement as unknown as SqliteStatement;
    },
    cached: () => cache.size,
  };
}
