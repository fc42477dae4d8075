import { sql, type Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { isPostgres } from "../../db/dialect.js";
import { rawSqliteOf } from "../../db/database.js";
import { responseTalliesOf } from "../../search/sqlite-response-tallies.js";

export type Bucket = { submitted: number; discarded: number; draft: number };
const emptyBucket = (): Bucket => ({ submitted: 0, discarded: 0, draft: 0 });

/**
 * SQLite: whether the instance holds fewer responses than 4x the dataset's seq span (estimates: the
 * responses' largest rowid, two index lookups), so that visiting every response beats visiting every record.
 */
async function fewResponses(db: Kysely<DB>, datasetId: string): Promise<boolean> {
  const row = (
    await sql<{ responses: number | null; span: number | null }>`SELECT (SELECT max(rowid) FROM responses) AS responses,
    (SELECT max(seq) FROM records WHERE dataset_id = ${datasetId}) - (SELECT min(seq) FROM records WHERE dataset_id = ${datasetId}) + 1 AS span`.execute(
      db,
    )
  ).rows[0];
  return (row?.responses ?? 0) <= 4 * Math.max(row?.span ?? 0, 1024);
}

export interface UserProgress {
  username: string;
  completed: Bucket;
  pending: Bucket;
}

/** Each annotator's responses by status, split by the status of their records (contract 3.4 users/progress). */
export async function getUsersProgress(db: Kysely<DB>, datasetId: string): Promise<UserProgress[]> {
  // SQLite: counted from the responses kept in memory (search/sqlite-response-tallies.ts; 1M records and 354K
  // responses: the query below 1,454 ms of CPU per call), the users named in SQL's order of their names.
  const raw = rawSqliteOf(db);
  const tallies = raw ? await db.connection().execute(async () => responseTalliesOf(raw).tallies(datasetId)) : null;
  if (tallies) {
    const names = await db.selectFrom("users").select(["id", "username"]).orderBy("username").execute();
    const byUser = new Map(tallies.map((t) => [t.userId, t.counts]));
    return names.flatMap(({ id, username }) => {
      const counts = byUser.get(id);
      return counts ? [{ username, completed: counts.completed, pending: counts.pending }] : [];
    });
  }
  return plainUsersProgress(db, datasetId);
}

/** The same counts by one query (PostgreSQL; SQLite when the tallies cannot answer; tests compare with it). */
export async function plainUsersProgress(db: Kysely<DB>, datasetId: string): Promise<UserProgress[]> {
  const rows =
    isPostgres(db) || !(await fewResponses(db, datasetId))
      ? await db
          .selectFrom("responses as s")
          .innerJoin("records as r", "r.id", "s.record_id")
          .innerJoin("users as u", "u.id", "s.user_id")
          .select([
            "u.username as username",
            "r.status as record_status",
            "s.status as response_status",
            (eb) => eb.fn.countAll<number>().as("n"),
          ])
          .where("r.dataset_id", "=", datasetId)
          .groupBy(["u.username", "r.status", "s.status"])
          .orderBy("u.username")
          .execute()
      : // SQLite goes from the dataset's records to their responses (one probe per record: 340 ms of
        // CPU at 1M records with 500 responses); from the responses when they are fewer.
        (
          await sql<{
            username: string;
            record_status: "pending" | "completed";
            response_status: "submitted" | "discarded" | "draft";
            n: number;
          }>`
        SELECT u.username AS username, r.status AS record_status, s.status AS response_status, count(*) AS n
        FROM responses s CROSS JOIN records r ON r.id = s.record_id JOIN users u ON u.id = s.user_id
        WHERE r.dataset_id = ${datasetId} GROUP BY u.username, r.status, s.status ORDER BY u.username`.execute(db)
        ).rows;
  const users = new Map<string, UserProgress>();
  for (const row of rows) {
    const entry = users.get(row.username) ?? { username: row.username, completed: emptyBucket(), pending: emptyBucket() };
    entry[row.record_status][row.response_status] += Number(row.n);
    users.set(row.username, entry);
  }
  return [...users.values()];
}
