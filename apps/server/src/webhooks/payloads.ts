import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { fieldOut, metadataPropertyOut, questionOut, vectorSettingsOut, workspaceOut } from "../http/serializers.js";
import { recordOut, responseOut } from "../records/read.js";

/**
 * The `data` of webhook events, in the shapes upstream Argilla sends (its webhook event schemas):
 * a dataset carries its workspace and settings, a record its dataset, a response its record and
 * user. Settings items leave out `dataset_id` (the dataset is the parent). Deleted resources are `{id}`.
 */

const withoutDatasetId = <T extends { dataset_id: string }>(item: T): Omit<T, "dataset_id"> => {
  const { dataset_id: _datasetId, ...rest } = item;
  return rest;
};

export type DatasetEventData = Awaited<ReturnType<typeof datasetEventData>>;

export async function datasetEventData(db: Kysely<DB>, datasetId: string) {
  const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", datasetId).executeTakeFirst();
  if (!dataset) return null;
  const [workspace, questions, fields, metadataProperties, vectorsSettings] = await Promise.all([
    db.selectFrom("workspaces").selectAll().where("id", "=", dataset.workspace_id).executeTakeFirstOrThrow(),
    db.selectFrom("questions").selectAll().where("dataset_id", "=", datasetId).orderBy("inserted_at").orderBy("id").execute(),
    db.selectFrom("fields").selectAll().where("dataset_id", "=", datasetId).orderBy("inserted_at").orderBy("id").execute(),
    db.selectFrom("metadata_properties").selectAll().where("dataset_id", "=", datasetId).orderBy("inserted_at").orderBy("id").execute(),
    db.selectFrom("vectors_settings").selectAll().where("dataset_id", "=", datasetId).orderBy("inserted_at").orderBy("id").execute(),
  ]);
  return {
    id: dataset.id,
    name: dataset.name,
    guidelines: dataset.guidelines,
    allow_extra_metadata: Boolean(dataset.allow_extra_metadata),
    status: dataset.status,
    distribution: JSON.parse(dataset.distribution) as { strategy: string; min_submitted: number },
    workspace: workspaceOut(workspace),
    questions: questions.map((q) => withoutDatasetId(questionOut(q))),
    fields: fields.map((f) => withoutDatasetId(fieldOut(f))),
    metadata_properties: metadataProperties.map((m) => withoutDatasetId(metadataPropertyOut(m))),
    vectors_settings: vectorsSettings.map((v) => withoutDatasetId(vectorSettingsOut(v))),
    last_activity_at: dataset.last_activity_at,
    inserted_at: dataset.inserted_at,
    updated_at: dataset.updated_at,
  };
}

export interface RecordEventData {
  id: string;
  status: string;
  fields: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  external_id: string | null;
  dataset: DatasetEventData;
  inserted_at: string;
  updated_at: string;
}

/** Records that still exist, in the order of `recordIds` (datasets are loaded once each). */
export async function recordsEventData(db: Kysely<DB>, recordIds: string[]): Promise<RecordEventData[]> {
  const rows = [];
  for (let i = 0; i < recordIds.length; i += 500) {
    rows.push(
      ...(await db
        .selectFrom("records")
        .selectAll()
        .where("id", "in", recordIds.slice(i, i + 500))
        .execute()),
    );
  }
  const byId = new Map(rows.map((r) => [r.id, r]));
  const datasets = new Map<string, DatasetEventData>();
  const out: RecordEventData[] = [];
  for (const id of recordIds) {
    const row = byId.get(id);
    if (!row) continue;
    let dataset = datasets.get(row.dataset_id);
    if (dataset === undefined) {
      dataset = await datasetEventData(db, row.dataset_id);
      datasets.set(row.dataset_id, dataset);
    }
    if (!dataset) continue;
    const record = recordOut(row);
    out.push({
      id: record.id,
      status: record.status,
      fields: record.fields,
      metadata: record.metadata,
      external_id: record.external_id,
      dataset,
      inserted_at: record.inserted_at,
      updated_at: record.updated_at,
    });
  }
  return out;
}

export async function responseEventData(db: Kysely<DB>, responseId: string) {
  const row = await db.selectFrom("responses").selectAll().where("id", "=", responseId).executeTakeFirst();
  if (!row) return null;
  const [record] = await recordsEventData(db, [row.record_id]);
  const user = await db
    .selectFrom("users")
    .select(["id", "first_name", "last_name", "username", "role", "inserted_at", "updated_at"])
    .where("id", "=", row.user_id)
    .executeTakeFirst();
  if (!record || !user) return null;
  const response = responseOut(row);
  return {
    id: response.id,
    values: response.values,
    status: response.status,
    record,
    user,
    inserted_at: response.inserted_at,
    updated_at: response.updated_at,
  };
}
