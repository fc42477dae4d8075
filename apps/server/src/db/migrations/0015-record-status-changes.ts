import { type Kysely, sql } from "kysely";

/**
 * `records_status_changes`: which records changed status or dataset, or were deleted, so that the
 * search adapter's in-memory record statuses (search/sqlite-status.ts, the annotation queue's
 * exclusions) follow them without reading a dataset's records of the excluded statuses per call.
 * New records need no trigger (none on insert: it would cost the import, see 0008 and 0011): the
 * readers catch them up by seq above the highest one they read. A delete logs `top`, the largest
 * seq left in `records`: SQLite reuses the seqs above it for the next inserts, so readers lower
 * their watermark to it and read those as new. Readers apply the log in id order (re-reading the
 * current row of each logged seq) and prune it; `sqlite_sequence` tells a reader that entries it
 * has not applied were pruned (it then reloads), as for record_vectors_knn_changes (0012).
 * SQLite only: PostgreSQL filters its records directly (variant: no-op).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE TABLE records_status_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL, top INTEGER)`.execute(db);
  await sql`CREATE TRIGGER records_status_changes_after_update AFTER UPDATE OF status, dataset_id ON records
    WHEN old.status IS NOT new.status OR old.dataset_id IS NOT new.dataset_id
    BEGIN INSERT INTO records_status_changes (seq, top) VALUES (new.seq, NULL); END`.execute(db);
  await sql`CREATE TRIGGER records_status_changes_after_delete AFTER DELETE ON records
    BEGIN INSERT INTO records_status_changes (seq, top) VALUES (old.seq, coalesce((SELECT max(seq) FROM records), 0)); END`.execute(db);
  // `record_metadata` (0009) kept the dataset of a record moved to another dataset: the in-memory
  // metadata columns, loaded by dataset from it, missed the moved records. Follow moves, and repair.
  await sql`CREATE TRIGGER record_metadata_after_move AFTER UPDATE OF dataset_id ON records
    WHEN old.dataset_id IS NOT new.dataset_id
    BEGIN UPDATE record_metadata SET dataset_id = new.dataset_id WHERE seq = new.seq; END`.execute(db);
  await sql`UPDATE record_metadata SET dataset_id = (SELECT r.dataset_id FROM records r WHERE r.seq = record_metadata.seq)
    WHERE dataset_id IS NOT (SELECT r.dataset_id FROM records r WHERE r.seq = record_metadata.seq)
      AND EXISTS (SELECT 1 FROM records r WHERE r.seq = record_metadata.seq)`.execute(db);
}
