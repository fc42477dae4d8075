import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import type { DatasetRow } from "../../auth/policies.js";
import { loadDatasetSchema } from "../dataset-schema.js";
import { withIncludes, type Include, type RecordOut } from "../read.js";
import { recordViewer } from "../visibility.js";

/** A page of the dataset's records in insertion order, with what `include` asks for, and the dataset's record count. */
export async function listDatasetRecords(
  db: Kysely<DB>,
  user: UserRow,
  dataset: DatasetRow,
  page: { offset: number; limit: number },
  include: Include,
): Promise<{ items: RecordOut[]; total: number }> {
  const [rows, count] = await Promise.all([
    db
      .selectFrom("records")
      .selectAll()
      .where("dataset_id", "=", dataset.id)
      .orderBy("seq")
      .limit(page.limit)
      .offset(page.offset)
      .execute(),
    db
      .selectFrom("records")
      .select((eb) => eb.fn.countAll<number>().as("n"))
      .where("dataset_id", "=", dataset.id)
      .executeTakeFirstOrThrow(),
  ]);
  const schema = await loadDatasetSchema(db, dataset);
  const viewer = await recordViewer(db, user, dataset.workspace_id);
  return { items: await withIncludes(db, schema, rows, include, viewer), total: Number(count.n) };
}
