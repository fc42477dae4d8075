import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { DatasetRow } from "../../auth/policies.js";
import { writeUnique } from "../../db/introspect.js";
import { conflict, unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import type { VectorSettingsRow } from "./find-vector-settings.js";

export const MAX_VECTOR_SETTINGS_PER_DATASET = 5;

const duplicateName = (name: string, datasetId: string) =>
  conflict(`Vector settings with name \`${name}\` already exists for dataset with id \`${datasetId}\``);

/** Adds vector settings to a dataset (409 for a taken name, 422 past MAX_VECTOR_SETTINGS_PER_DATASET). */
export async function createVectorSettings(
  db: Kysely<DB>,
  dataset: DatasetRow,
  input: { name: string; title: string; dimensions: number },
): Promise<VectorSettingsRow> {
  const existing = await db.selectFrom("vectors_settings").select("name").where("dataset_id", "=", dataset.id).execute();
  if (existing.some((v) => v.name === input.name)) throw duplicateName(input.name, dataset.id);
  if (existing.length >= MAX_VECTOR_SETTINGS_PER_DATASET) {
    throw unprocessable(`The maximum number of vector settings has been reached for dataset with id \`${dataset.id}\``);
  }
  const timestamp = now();
  const row: VectorSettingsRow = {
    id: randomUUID(),
    dataset_id: dataset.id,
    name: input.name,
    title: input.title,
    dimensions: input.dimensions,
    inserted_at: timestamp,
    updated_at: timestamp,
  };
  await writeUnique(
    () => db.insertInto("vectors_settings").values(row).execute(),
    () => duplicateName(input.name, dataset.id),
  );
  return row;
}
