import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import type { DatasetRow } from "../../auth/policies.js";
import { loadDatasetSchema, type DatasetSchema } from "../dataset-schema.js";
import { FULL_INCLUDE, withIncludes, type RecordOut, type RecordRow } from "../read.js";
import { recordViewer } from "../visibility.js";

/** One record with its responses, suggestions and vectors, as the user may see them. */
export async function readRecord(
  db: Kysely<DB>,
  user: UserRow,
  dataset: DatasetRow,
  record: RecordRow,
  schema?: DatasetSchema,
): Promise<RecordOut> {
  const datasetSchema = schema ?? (await loadDatasetSchema(db, dataset));
  return (await withIncludes(db, datasetSchema, [record], FULL_INCLUDE, await recordViewer(db, user, dataset.workspace_id)))[0]!;
}
