import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { now } from "../../clock.js";
import { allowedRolesFor } from "../metadata.js";
import type { MetadataPropertyRow } from "./find-metadata-property.js";

/** Changes a metadata property's title or its visibility for annotators. Returns the updated row. */
export async function updateMetadataProperty(
  db: Kysely<DB>,
  property: MetadataPropertyRow,
  input: { title?: string; visible_for_annotators?: boolean },
): Promise<MetadataPropertyRow> {
  const changes: Partial<MetadataPropertyRow> = { updated_at: now() };
  if (input.title !== undefined) changes.title = input.title;
  if (input.visible_for_annotators !== undefined) changes.allowed_roles = JSON.stringify(allowedRolesFor(input.visible_for_annotators));
  await db.updateTable("metadata_properties").set(changes).where("id", "=", property.id).execute();
  return { ...property, ...changes };
}
