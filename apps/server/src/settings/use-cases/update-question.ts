import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import { applyQuestionSettingsUpdate, type QuestionSettings, type QuestionSettingsUpdate } from "../questions.js";
import type { QuestionRow } from "./find-question.js";

export interface QuestionChanges {
  title?: string;
  description?: string | null;
  required?: boolean;
  settings?: QuestionSettingsUpdate;
}

/** Changes a question's title, description, required flag or settings (within what the type allows: 422). */
export async function updateQuestion(db: Kysely<DB>, question: QuestionRow, input: QuestionChanges): Promise<QuestionRow> {
  const changes: Partial<QuestionRow> = { updated_at: now() };
  if (input.title !== undefined) changes.title = input.title;
  if (input.description !== undefined) changes.description = input.description;
  if (input.required !== undefined) changes.required = input.required ? 1 : 0;
  if (input.settings !== undefined) {
    const result = applyQuestionSettingsUpdate(JSON.parse(question.settings) as QuestionSettings, input.settings);
    if ("error" in result) throw unprocessable(result.error);
    changes.settings = JSON.stringify(result.settings);
  }
  await db.updateTable("questions").set(changes).where("id", "=", question.id).execute();
  return { ...question, ...changes };
}
