import { type Kysely, sql } from "kysely";

/**
 * Similarity search on SQLite moves from sqlite-vec `vec0` float tables (a 1.5 KB copy of every
 * vector, an exact scan per query, built on first use: ~40 s and ~760 ms per query at 1M records)
 * to binary codes kept in memory and rebuilt from `record_vectors` (search/sqlite-knn.ts). The
 * search process learns of new vectors by rowid (rowid above the highest it has read); this log
 * tells it which rows changed otherwise: updated or deleted vectors, and inserts that reuse a rowid
 * at or below the highest one read (SQLite reuses max(rowid)+1 after the top rows are deleted).
 * Plain appends, the ingestion path, write nothing here: the insert trigger's WHEN is one lookup.
 * The `record_vectors_knn_` prefix keeps the log out of migrate-to-postgres.ts (SQLite-only state).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  const old = await sql<{
    name: string;
    type: string;
  }>`SELECT name, type FROM sqlite_master WHERE name LIKE 'record_vectors_knn_%' AND (type = 'trigger' OR sql LIKE 'CREATE VIRTUAL TABLE%')`.execute(
    db,
  );
  for (const t of old.rows.filter((r) => r.type === "trigger")) await sql.raw(`DROP TRIGGER IF EXISTS "${t.name}"`).execute(db);
  for (const t of old.rows.filter((r) => r.type === "table")) await sql.raw(`DROP TABLE IF EXISTS "${t.name}"`).execute(db);
  await sql`CREATE TABLE record_vectors_knn_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, vrow INTEGER NOT NULL)`.execute(db);
  // The highest record_vectors rowid any search process has read (raised by the readers, never lowered).
  await sql`INSERT INTO search_index_state (name, seq) VALUES ('record_vectors_read', 0)`.execute(db);
  await sql`CREATE TRIGGER record_vectors_knn_changes_ai AFTER INSERT ON record_vectors
    WHEN new.rowid <= (SELECT seq FROM search_index_state WHERE name = 'record_vectors_read')
    BEGIN INSERT INTO record_vectors_knn_changes (vrow) VALUES (new.rowid); END`.execute(db);
  await sql`CREATE TRIGGER record_vectors_knn_changes_au AFTER UPDATE ON record_vectors
    BEGIN INSERT INTO record_vectors_knn_changes (vrow) VALUES (new.rowid); END`.execute(db);
  await sql`CREATE TRIGGER record_vectors_knn_changes_ad AFTER DELETE ON record_vectors
    BEGIN INSERT INTO record_vectors_knn_changes (vrow) VALUES (old.rowid); END`.execute(db);
}
