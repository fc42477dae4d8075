import { type Kysely, sql } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import type { DatasetRow } from "../../auth/policies.js";
import { canSeeMetadataProperty, recordViewer } from "../../records/visibility.js";
import type { MetadataPropertyRow } from "./find-metadata-property.js";

/** The dataset's metadata properties the user may see, in creation order. */
export async function listMetadataProperties(db: Kysely<DB>, user: UserRow, dataset: DatasetRow): Promise<MetadataPropertyRow[]> {
  const properties = await db
    .selectFrom("metadata_properties")
    .selectAll()
    .where("dataset_id", "=", dataset.id)
    .orderBy("inserted_at")
    .orderBy(sql`rowid`)
    .execute();
  const viewer = await recordViewer(db, user, dataset.workspace_id);
  return properties.filter((p) => canSeeMetadataProperty(viewer, JSON.parse(p.allowed_roles) as string[]));
}
