import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { MetadataPropertyRow } from "./find-metadata-property.js";

/** Deletes a metadata property (records keep their metadata values). */
export async function deleteMetadataProperty(db: Kysely<DB>, property: MetadataPropertyRow): Promise<void> {
  await db.deleteFrom("metadata_properties").where("id", "=", property.id).execute();
}
