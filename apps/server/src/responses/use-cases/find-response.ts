import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { isMember, type DatasetRow } from "../../auth/policies.js";
import { forbidden, notFound } from "../../http/errors.js";
import type { RecordRow, ResponseRow } from "../../records/read.js";

/** Owner; the response's own user; or an admin member of the dataset's workspace (contract 1.4). */
async function canChangeResponse(db: Kysely<DB>, user: UserRow, response: ResponseRow, dataset: DatasetRow): Promise<boolean> {
  if (user.role === "owner") return true;
  if (!(await isMember(db, user, dataset.workspace_id))) return false;
  return response.user_id === user.id || user.role === "admin";
}

/** Loads a response with its record and dataset (404) when the user may change it (403 otherwise). */
export async function findResponse(
  db: Kysely<DB>,
  user: UserRow,
  responseId: string,
): Promise<{ response: ResponseRow; record: RecordRow; dataset: DatasetRow }> {
  const response = await db.selectFrom("responses").selectAll().where("id", "=", responseId).executeTakeFirst();
  if (!response) throw notFound(`Response with id \`${responseId}\` not found`);
  const record = await db.selectFrom("records").selectAll().where("id", "=", response.record_id).executeTakeFirstOrThrow();
  const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", record.dataset_id).executeTakeFirstOrThrow();
  if (!(await canChangeResponse(db, user, response, dataset))) throw forbidden();
  return { response, record, dataset };
}
