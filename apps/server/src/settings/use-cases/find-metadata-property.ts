import type { Kysely, Selectable } from "kysely";
import type { DB, MetadataPropertiesTable } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { datasetFor, isMember, type DatasetRow } from "../../auth/policies.js";
import { forbidden, notFound } from "../../http/errors.js";
import { canSeeMetadataProperty, recordViewer } from "../../records/visibility.js";

export type MetadataPropertyRow = Selectable<MetadataPropertiesTable>;

/**
 * Contract 1.4 "metadata property get": owners always; admins who are members; annotators who are members
 * only when the property is visible for annotators (its allowed_roles include "annotator").
 */
async function canReadMetadataProperty(
  db: Kysely<DB>,
  user: UserRow,
  property: MetadataPropertyRow,
  workspaceId: string,
): Promise<boolean> {
  if (user.role !== "owner" && !(await isMember(db, user, workspaceId))) return false;
  return canSeeMetadataProperty(await recordViewer(db, user, workspaceId), JSON.parse(property.allowed_roles) as string[]);
}

/** Loads a metadata property (404) and applies the get policy ("read") or the admin-member policy ("admin"). */
export async function findMetadataProperty(
  db: Kysely<DB>,
  user: UserRow,
  id: string,
  access: "read" | "admin",
): Promise<{ property: MetadataPropertyRow; dataset: DatasetRow }> {
  const property = await db.selectFrom("metadata_properties").selectAll().where("id", "=", id).executeTakeFirst();
  if (!property) throw notFound(`Metadata property with id \`${id}\` not found`);
  if (access === "admin") return { property, dataset: await datasetFor(db, user, property.dataset_id, "admin") };
  const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", property.dataset_id).executeTakeFirstOrThrow();
  if (!(await canReadMetadataProperty(db, user, property, dataset.workspace_id))) throw forbidden();
  return { property, dataset };
}
