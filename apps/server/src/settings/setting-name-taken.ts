import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";

/** True when the dataset already has a field, question or metadata property of that name. */
export async function settingNameTaken(
  db: Kysely<DB>,
  table: "fields" | "questions" | "metadata_properties",
  datasetId: string,
  name: string,
): Promise<boolean> {
  // The three tables share dataset_id and name; Kysely cannot narrow a union of table names.
  const settings = db as unknown as Kysely<Pick<DB, "fields">>;
  const row = await settings
    .selectFrom(table as "fields")
    .select("id")
    .where("dataset_id", "=", datasetId)
    .where("name", "=", name)
    .executeTakeFirst();
  return row !== undefined;
}
