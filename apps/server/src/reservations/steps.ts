import type SQLite from "better-sqlite3";
import type { CompiledQuery, Kysely, Transaction } from "kysely";
import type { DB } from "../db/schema.js";

/** Rows a statement answered (empty for a write). */
export type Rows = Record<string, unknown>[];

/**
 * A unit of database work written once for both stores: a generator that yields each statement
 * (compiled by the query builder) and receives its rows, so that later statements can depend on
 * earlier answers. `runOnSqlite` runs it synchronously, `runOnPostgres` statement by statement.
 */
export type Steps<T> = Generator<CompiledQuery, T, Rows>;

const statements = new WeakMap<SQLite.Database, Map<string, SQLite.Statement>>();
/** Distinct SQL texts kept prepared per connection (a take's texts vary only with its window's size). */
const PREPARED = 200;

function prepared(raw: SQLite.Database, text: string): SQLite.Statement {
  let cache = statements.get(raw);
  if (!cache) statements.set(raw, (cache = new Map()));
  let statement = cache.get(text);
  if (!statement || statement.busy) {
    statement = raw.prepare(text);
    if (cache.size >= PREPARED) cache.clear();
    cache.set(text, statement);
  }
  return statement;
}

/**
 * Runs the steps synchronously on the embedded connection: nothing else runs between its statements.
 * The caller holds the query builder's connection (`db.connection().execute`) and, for writes, wraps
 * this in a better-sqlite3 transaction.
 */
export function runOnSqlite<T>(raw: SQLite.Database, steps: Steps<T>): T {
  let next = steps.next();
  while (!next.done) {
    const statement = prepared(raw, next.value.sql);
    const parameters = next.value.parameters as unknown[];
    let rows: Rows = [];
    if (statement.reader) rows = statement.all(...parameters) as Rows;
    else statement.run(...parameters);
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
