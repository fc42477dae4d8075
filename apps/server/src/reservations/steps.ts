import type { CompiledQuery, Kysely, SqliteDatabase, Transaction } from "kysely";
import type { DB } from "../db/schema.js";

/** Rows a statement answered (empty for a write). */
export type Rows = Record<string, unknown>[];

/**
 * A unit of database work written once for both stores: a generator that yields each statement
 * (compiled by the query builder) and receives its rows, so that later statements can depend on
 * earlier answers. `runOnSqlite` runs it synchronously, `runOnPostgres` statement by statement.
 */
export type Steps<T> = Generator<CompiledQuery, T, Rows>;

/**
 * Runs the steps synchronously on the embedded connection (`cachedSqliteOf`): nothing else runs between its statements.
 * The caller holds the query builder's connection (`db.connection().execute`) and, for writes, wraps
 * this in a better-sqlite3 transaction.
 */
export function runOnSqlite<T>(connection: SqliteDatabase, steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    // the connection's compiled-statement cache (db/statement-cache.ts), as Kysely's own queries use it
    const statement = connection.prepare(next.value.sql);
    let rows: Rows = [];
    if (statement.reader) rows = statement.all(next.value.parameters) as Rows;
    else statement.run(next.value.parameters);
    next = steps.next(rows);
  }
  return next.value;
}

/** Runs the steps statement by statement on PostgreSQL (in the caller's transaction, if it passes one). */
export async function runOnPostgres<T>(db: Kysely<DB> | Transaction<DB>, steps: Steps<T>): Promise<T> {
  let next = steps.next();
  while (!next.done) {
    const result = await db.executeQuery(next.value);
    next = steps.next(result.rows as Rows);
  }
  return next.value;
}
