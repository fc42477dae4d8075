import type { Kysely, Selectable } from "kysely";
import type { DB, QuestionsTable } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { datasetFor, type DatasetRow } from "../../auth/policies.js";
import { notFound } from "../../http/errors.js";

export type QuestionRow = Selectable<QuestionsTable>;

/** Loads a question (404 ``Question with id `X` not found``) and checks access to its dataset. */
export async function findQuestion(
  db: Kysely<DB>,
  user: UserRow,
  questionId: string,
  access: "read" | "admin",
): Promise<{ question: QuestionRow; dataset: DatasetRow }> {
  const question = await db.selectFrom("questions").selectAll().where("id", "=", questionId).executeTakeFirst();
  if (!question) throw notFound(`Question with id \`${questionId}\` not found`);
  return { question, dataset: await datasetFor(db, user, question.dataset_id, access) };
}
