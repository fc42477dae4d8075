import type SQLite from "better-sqlite3";

/** One `T` per SQLite connection, made on first use (the search's in-memory structures: statuses, answered sets). */
export function perConnection<T>(make: (raw: SQLite.Database) => T): (raw: SQLite.Database) => T {
  const byConnection = new WeakMap<SQLite.Database, T>();
  return (raw) => {
    let kept = byConnection.get(raw);
    if (kept === undefined) {
      kept = make(raw);
      byConnection.set(raw, kept);
    }
    return kept;
  };
}
