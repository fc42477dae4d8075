import { type Kysely, sql } from "kysely";

/**
 * The annotation page's sorts without text at 1M records (issues 25 and 31):
 * - `records_dataset_updated_idx` (dataset_id, updated_at): a sort by update time walks it in order and
 *   stops at the page instead of sorting every record of the dataset (the pending queue sorted by
 *   updated_at desc: 3.2 s at 1M);
 * - `suggestion_versions`: a number per question that moves whenever one of its suggestions is written
 *   or deleted (with its record or question too), kept by triggers so that every writer (the routes, the
 *   bulk ingestion's prepared statements, cascades) moves it. The suggestions' sort keys kept in memory
 *   (search/sqlite-sort-keys.ts) are valid for one version.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`CREATE INDEX IF NOT EXISTS records_dataset_updated_idx ON records (dataset_id, updated_at)`.execute(db);
  await sql`CREATE TABLE suggestion_versions (question_id TEXT PRIMARY KEY, version INTEGER NOT NULL) WITHOUT ROWID`.execute(db);
  const bump = (row: string) =>
    `INSERT INTO suggestion_versions (question_id, version) VALUES (${row}.question_id, 1) ON CONFLICT (question_id) DO UPDATE SET version = version + 1;`;
  for (const [event, row] of [
    ["insert", "new"],
    ["update", "new"],
    ["delete", "old"],
  ] as const)
    await sql
      .raw(`CREATE TRIGGER suggestion_versions_${event} AFTER ${event.toUpperCase()} ON suggestions BEGIN ${bump(row)} END`)
      .execute(db);
  // A suggestion moved to another question (never through the API) moves both.
  await sql
    .raw(
      `CREATE TRIGGER suggestion_versions_move AFTER UPDATE OF question_id ON suggestions WHEN old.question_id IS NOT new.question_id BEGIN ${bump("old")} END`,
    )
    .execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const t of ["insert", "update", "delete", "move"]) await sql.raw(`DROP TRIGGER IF EXISTS suggestion_versions_${t}`).execute(db);
  await sql`DROP TABLE IF EXISTS suggestion_versions`.execute(db);
  await sql`DROP INDEX IF EXISTS records_dataset_updated_idx`.execute(db);
}
