import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { DatasetRow } from "../../auth/policies.js";
import { unprocessable } from "../../http/errors.js";
import type { QuestionRow } from "./find-question.js";

/** Deletes a question of a draft dataset (422 once published). */
export async function deleteQuestion(db: Kysely<DB>, question: QuestionRow, dataset: DatasetRow): Promise<void> {
  if (dataset.status === "ready") throw unprocessable("questions cannot be deleted for a published dataset");
  await db.deleteFrom("questions").where("id", "=", question.id).execute();
}
