import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";

/**
 * Responses of `userId` to `recordIds` (no values), written as the search tests answer records: the
 * annotation queue's filters (pending, submitted, ...) read them.
 */
export async function addResponses(
  db: Kysely<DB>,
  recordIds: readonly string[],
  userId: string,
  status: "submitted" | "draft" | "discarded" = "submitted",
): Promise<void> {
  if (recordIds.length === 0) return;
  const ts = "2024-01-01T00:00:00";
  await db
    .insertInto("responses")
    .values(
      recordIds.map((recordId) => ({
        id: randomUUID(),
        record_id: recordId,
        user_id: userId,
        status,
        values: "{}",
        inserted_at: ts,
        updated_at: ts,
      })),
    )
    .execute();
}
