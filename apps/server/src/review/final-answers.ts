import type { Kysely } from "kysely";
import { z } from "zod";
import type { DB } from "../db/schema.js";
import { unprocessable } from "../http/errors.js";
import { now } from "../clock.js";
import type { RecordRow } from "../records/read.js";
import type { DatasetSchema } from "../records/dataset-schema.js";
import { RecordValueError, validateQuestionValue } from "../records/values.js";

export const FinalAnswerBody = z.object({
  values: z.record(z.string(), z.object({ value: z.unknown() })),
});

/**
 * Validates a final answer against the questions' settings with the rules of a submitted response
 * (a label among the options, a full ranking, spans inside the field...): unknown questions, empty
 * answers and misfitting values are 422s naming the question. At least one question must be answered.
 */
export function checkFinalAnswer(schema: DatasetSchema, record: RecordRow, values: Record<string, { value: unknown }>): void {
  const entries = Object.entries(values);
  if (entries.length === 0) throw unprocessable("A final answer needs a value for at least one question");
  const recordFields = JSON.parse(record.fields) as Record<string, unknown>;
  for (const [name, entry] of entries) {
    const question = schema.questionByName.get(name);
    if (!question) throw unprocessable(`Question \`${name}\` not found in dataset \`${schema.dataset.id}\``);
    if (entry.value === undefined || entry.value === null) throw unprocessable(`Final answer for question \`${name}\` has no value`);
    try {
      validateQuestionValue(question, entry.value, { status: "submitted", recordFields });
    } catch (error) {
      if (error instanceof RecordValueError) throw unprocessable(`Final answer for question \`${name}\`: ${error.message}`);
      throw error;
    }
  }
}

/** Sets (creates or replaces) a record's final answer; annotators' responses are not touched. */
export async function saveFinalAnswer(
  db: Kysely<DB>,
  record: RecordRow,
  reviewerId: string,
  values: Record<string, { value: unknown }>,
): Promise<void> {
  const timestamp = now();
  const stored = JSON.stringify(values);
  await db
    .insertInto("record_final_answers")
    .values({
      record_id: record.id,
      dataset_id: record.dataset_id,
      values: stored,
      reviewer_id: reviewerId,
      inserted_at: timestamp,
      updated_at: timestamp,
    })
    .onConflict((oc) => oc.column("record_id").doUpdateSet({ values: stored, reviewer_id: reviewerId, updated_at: timestamp }))
    .execute();
}

/** Clears a record's final answer; whether there was one. */
export async function clearFinalAnswer(db: Kysely<DB>, recordId: string): Promise<boolean> {
  const result = await db.deleteFrom("record_final_answers").where("record_id", "=", recordId).executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
