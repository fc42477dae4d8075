import type { Kysely } from "kysely";
import { type Batches, deleteInBatches } from "../../db/delete-in-batches.js";
import type { DB } from "../../db/schema.js";
import type { VectorSettingsRow } from "./find-vector-settings.js";

/**
 * Deletes vector settings with their stored vectors, the vectors in batches (db/delete-in-batches.ts: 1M vectors of
 * 384 dimensions are ~1.5 GB, which one cascade deleted while every other write waited).
 */
export async function deleteVectorSettings(db: Kysely<DB>, vectorSettings: VectorSettingsRow, batch?: Batches): Promise<void> {
  await deleteInBatches(
    db,
    { table: "record_vectors", column: "vector_settings_id", key: "record_id", value: vectorSettings.id },
    "vectors_settings",
    batch,
  );
}
