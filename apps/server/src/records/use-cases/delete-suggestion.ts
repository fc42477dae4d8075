import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { requireAdminMember } from "../../auth/policies.js";
import { notFound } from "../../http/errors.js";
import type { SuggestionRow } from "../read.js";

/** Deletes one suggestion (404 when unknown, 403 unless owner or admin member of its workspace). Returns it. */
export async function deleteSuggestion(db: Kysely<DB>, user: UserRow, suggestionId: string): Promise<SuggestionRow> {
  const suggestion = await db.selectFrom("suggestions").selectAll().where("id", "=", suggestionId).executeTakeFirst();
  if (!suggestion) throw notFound(`Suggestion with id \`${suggestionId}\` not found`);
  const dataset = await db
    .selectFrom("records")
    .innerJoin("datasets", "datasets.id", "records.dataset_id")
    .select("datasets.workspace_id")
    .where("records.id", "=", suggestion.record_id)
    .executeTakeFirstOrThrow();
  await requireAdminMember(db, user, dataset.workspace_id);
  await db.deleteFrom("suggestions").where("id", "=", suggestion.id).execute();
  return suggestion;
}
