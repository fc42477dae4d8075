import { type Kysely, sql } from "kysely";
import type { DatasetsTable, DB } from "../../db/schema.js";
import type { DatasetRow } from "../../auth/policies.js";
import { isUniqueViolation, tableExists } from "../../db/introspect.js";
import { businessError } from "../../http/errors.js";
import { now } from "../../clock.js";
import type { ChangeDeps } from "../../use-case-deps.js";
import { DISTRIBUTION_WITH_RESPONSES_MESSAGE, duplicateDatasetName, type Distribution } from "../dataset-rules.js";

export interface DatasetChanges {
  name?: string;
  guidelines?: string | null;
  allow_extra_metadata?: boolean;
  distribution?: Distribution;
  metadata?: Record<string, unknown> | null;
}

/** True when any response exists for a record of the dataset (false before the records migration lands). */
async function datasetHasResponses(db: Kysely<DB>, datasetId: string): Promise<boolean> {
  if (!(await tableExists(db, "responses")) || !(await tableExists(db, "records"))) return false;
  const result = await sql<{ found: number }>`select exists(
    select 1 from responses join records on records.id = responses.record_id where records.dataset_id = ${datasetId}
  ) as found`.execute(db);
  return (result.rows[0]?.found ?? 0) === 1;
}

/**
 * Changes a dataset (409 for a taken name; 422 `update_distribution_with_existing_responses` when the
 * distribution changes once responses exist). Returns the updated row.
 */
export async function updateDataset({ db, events }: ChangeDeps, dataset: DatasetRow, input: DatasetChanges): Promise<DatasetRow> {
  const changes: Partial<DatasetsTable> = {};
  if (input.name !== undefined && input.name !== dataset.name) {
    const taken = await db
      .selectFrom("datasets")
      .select("id")
      .where("workspace_id", "=", dataset.workspace_id)
      .where("name", "=", input.name)
      .executeTakeFirst();
    if (taken) throw duplicateDatasetName(input.name, dataset.workspace_id);
    changes.name = input.name;
  }
  if (input.guidelines !== undefined) changes.guidelines = input.guidelines;
  if (input.allow_extra_metadata !== undefined) changes.allow_extra_metadata = input.allow_extra_metadata ? 1 : 0;
  if (input.metadata !== undefined) changes.metadata = input.metadata === null ? null : JSON.stringify(input.metadata);
  if (input.distribution !== undefined) {
    const next = JSON.stringify(input.distribution);
    const current = JSON.parse(dataset.distribution) as Distribution;
    const changed = current.strategy !== input.distribution.strategy || current.min_submitted !== input.distribution.min_submitted;
    if (changed && (await datasetHasResponses(db, dataset.id))) {
      throw businessError("update_distribution_with_existing_responses", DISTRIBUTION_WITH_RESPONSES_MESSAGE);
    }
    changes.distribution = next;
  }
  changes.updated_at = now();
  try {
    await db.updateTable("datasets").set(changes).where("id", "=", dataset.id).execute();
  } catch (error) {
    if (isUniqueViolation(error) && changes.name !== undefined) throw duplicateDatasetName(changes.name, dataset.workspace_id);
    throw error;
  }
  events.emit("dataset.updated", { datasetId: dataset.id });
  return { ...dataset, ...changes };
}
