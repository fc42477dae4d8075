import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { recordCounts } from "../../records/counts.js";
import { responseCounts } from "../../responses/response-counts.js";

export interface MyMetrics {
  responses: { total: number; submitted: number; discarded: number; draft: number; pending: number };
}

/** The caller's responses in a dataset by status, and the pending records they have not answered (contract 3.4). */
export async function getMyMetrics(db: Kysely<DB>, userId: string, datasetId: string): Promise<MyMetrics> {
  // Pending = pending records (the dataset's counters, migration 0011) minus those the caller
  // answered (one probe per answered record), instead of a NOT EXISTS probe per record of the
  // dataset: this call follows every Submit in the web app (~200 ms of CPU at 100K records). The caller's responses by
  // status: PostgreSQL's counters (migration 0041) instead of joining each response with its record.
  const [byStatus, counts, answeredPendingRow] = await Promise.all([
    responseCounts(db, datasetId, userId),
    recordCounts(db, datasetId),
    db
      .selectFrom("responses as s")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("s.user_id", "=", userId)
      .where((eb) =>
        eb.exists(
          eb
            .selectFrom("records as r")
            .select("r.id")
            .whereRef("r.id", "=", "s.record_id")
            .where("r.dataset_id", "=", datasetId)
            .where("r.status", "=", "pending"),
        ),
      )
      .executeTakeFirstOrThrow(),
  ]);
  const responses = {
    submitted: byStatus.submitted,
    discarded: byStatus.discarded,
    draft: byStatus.draft,
    pending: counts.pending - Number(answeredPendingRow.n),
  };
  return { responses: { total: responses.submitted + responses.discarded + responses.draft + responses.pending, ...responses } };
}
