import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { DatasetRow } from "../../auth/policies.js";
import { isUniqueViolation } from "../../db/introspect.js";
import { conflict, unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import type { FieldSettings } from "../fields.js";
import type { FieldRow } from "./find-field.js";

export interface FieldInput {
  name: string;
  title: string;
  required?: boolean | null;
  settings: FieldSettings;
}

const duplicateName = (name: string, datasetId: string) =>
  conflict(`Field with name \`${name}\` already exists for dataset with id \`${datasetId}\``);

/** Adds a field to a draft dataset (422 once published, 409 for a taken name). */
export async function createField(db: Kysely<DB>, dataset: DatasetRow, input: FieldInput): Promise<FieldRow> {
  if (dataset.status === "ready") throw unprocessable("Field cannot be created for a published dataset");
  const taken = await db
    .selectFrom("fields")
    .select("id")
    .where("dataset_id", "=", dataset.id)
    .where("name", "=", input.name)
    .executeTakeFirst();
  if (taken) throw duplicateName(input.name, dataset.id);
  const timestamp = now();
  const row: FieldRow = {
    id: randomUUID(),
    dataset_id: dataset.id,
    name: input.name,
    title: input.title,
    required: input.required === false ? 0 : 1,
    settings: JSON.stringify(input.settings),
    inserted_at: timestamp,
    updated_at: timestamp,
  };
  try {
    await db.insertInto("fields").values(row).execute();
  } catch (error) {
    if (isUniqueViolation(error)) throw duplicateName(input.name, dataset.id);
    throw error;
  }
  return row;
}
