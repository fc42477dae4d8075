import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { DatasetRow } from "../../auth/policies.js";
import { writeUnique } from "../../db/introspect.js";
import { conflict, unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import type { FieldSettings } from "../fields.js";
import type { FieldRow } from "./find-field.js";
import { settingNameTaken } from "../setting-name-taken.js";

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
  if (await settingNameTaken(db, "fields", dataset.id, input.name)) throw duplicateName(input.name, dataset.id);
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
  await writeUnique(
    () => db.insertInto("fields").values(row).execute(),
    () => duplicateName(input.name, dataset.id),
  );
  return row;
}
