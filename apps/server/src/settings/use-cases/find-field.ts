import type { Kysely, Selectable } from "kysely";
import type { DB, FieldsTable } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { datasetFor, type DatasetRow } from "../../auth/policies.js";
import { notFound } from "../../http/errors.js";

export type FieldRow = Selectable<FieldsTable>;

/** Loads a field (404 ``Field with id `X` not found``) and checks access to its dataset. */
export async function findField(
  db: Kysely<DB>,
  user: UserRow,
  fieldId: string,
  access: "read" | "admin",
): Promise<{ field: FieldRow; dataset: DatasetRow }> {
  const field = await db.selectFrom("fields").selectAll().where("id", "=", fieldId).executeTakeFirst();
  if (!field) throw notFound(`Field with id \`${fieldId}\` not found`);
  return { field, dataset: await datasetFor(db, user, field.dataset_id, access) };
}
