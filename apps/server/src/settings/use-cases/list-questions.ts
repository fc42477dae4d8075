import { type Kysely, sql } from "kysely";
import type { DB } from "../../db/schema.js";
import type { QuestionRow } from "./find-question.js";

/** The dataset's questions in creation order. */
export async function listQuestions(db: Kysely<DB>, datasetId: string): Promise<QuestionRow[]> {
  return db
    .selectFrom("questions")
    .selectAll()
    .where("dataset_id", "=", datasetId)
    .orderBy("inserted_at")
    .orderBy(sql`rowid`)
    .execute();
}
