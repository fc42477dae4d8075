import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { DatasetRow } from "../../auth/policies.js";
import { unprocessable } from "../../http/errors.js";
import type { FieldRow } from "./find-field.js";

/** Deletes a field of a draft dataset (422 once published). */
export async function deleteField(db: Kysely<DB>, field: FieldRow, dataset: DatasetRow): Promise<void> {
  if (dataset.status === "ready") throw unprocessable("Fields cannot be deleted for a published dataset");
  await db.deleteFrom("fields").where("id", "=", field.id).execute();
}
