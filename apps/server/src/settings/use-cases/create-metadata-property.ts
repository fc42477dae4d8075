import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { DatasetRow } from "../../auth/policies.js";
import { writeUnique } from "../../db/introspect.js";
import { conflict } from "../../http/errors.js";
import { now } from "../../clock.js";
import { allowedRolesFor, type MetadataSettings } from "../metadata.js";
import type { MetadataPropertyRow } from "./find-metadata-property.js";
import { settingNameTaken } from "../setting-name-taken.js";

export interface MetadataPropertyInput {
  name: string;
  title: string;
  settings: MetadataSettings;
  visible_for_annotators: boolean;
}

const duplicateName = (name: string, datasetId: string) =>
  conflict(`Metadata property with name \`${name}\` already exists for dataset with id \`${datasetId}\``);

/** Adds a metadata property to a dataset (409 for a taken name). */
export async function createMetadataProperty(
  db: Kysely<DB>,
  dataset: DatasetRow,
  input: MetadataPropertyInput,
): Promise<MetadataPropertyRow> {
  if (await settingNameTaken(db, "metadata_properties", dataset.id, input.name)) throw duplicateName(input.name, dataset.id);
  const timestamp = now();
  const row: MetadataPropertyRow = {
    id: randomUUID(),
    dataset_id: dataset.id,
    name: input.name,
    title: input.title,
    settings: JSON.stringify(input.settings),
    allowed_roles: JSON.stringify(allowedRolesFor(input.visible_for_annotators)),
    inserted_at: timestamp,
    updated_at: timestamp,
  };
  await writeUnique(
    () => db.insertInto("metadata_properties").values(row).execute(),
    () => duplicateName(input.name, dataset.id),
  );
  return row;
}
