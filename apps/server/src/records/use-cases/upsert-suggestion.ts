import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { DatasetRow } from "../../auth/policies.js";
import { unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import { loadDatasetSchema } from "../dataset-schema.js";
import type { RecordRow, SuggestionRow } from "../read.js";
import { RecordValueError, validateSuggestionValue } from "../values.js";

export interface SuggestionInput {
  question_id: string;
  type?: "model" | "human" | null;
  value: unknown;
  agent?: string | null;
  score?: number | number[] | null;
}

/**
 * Creates or replaces the record's suggestion for one question (422 for an unknown question or a value
 * the question refuses). `created` tells a new suggestion (201) from a replaced one (200).
 */
export async function upsertSuggestion(
  db: Kysely<DB>,
  record: RecordRow,
  dataset: DatasetRow,
  input: SuggestionInput,
): Promise<{ row: SuggestionRow; created: boolean }> {
  const schema = await loadDatasetSchema(db, dataset);
  const question = schema.questionById.get(input.question_id);
  if (!question) throw unprocessable(`Question with id \`${input.question_id}\` not found`);
  try {
    validateSuggestionValue(question, input.value, input.score, JSON.parse(record.fields) as Record<string, unknown>);
  } catch (error) {
    if (error instanceof RecordValueError) throw unprocessable(error.message);
    throw error;
  }
  const timestamp = now();
  const values = {
    value: JSON.stringify(input.value),
    score: input.score === undefined || input.score === null ? null : JSON.stringify(input.score),
    agent: input.agent ?? null,
    type: input.type ?? null,
    updated_at: timestamp,
  };
  return db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom("suggestions")
      .select("id")
      .where("record_id", "=", record.id)
      .where("question_id", "=", question.id)
      .executeTakeFirst();
    const id = existing?.id ?? randomUUID();
    if (existing) await trx.updateTable("suggestions").set(values).where("id", "=", id).execute();
    else
      await trx
        .insertInto("suggestions")
        .values({ id, record_id: record.id, question_id: question.id, inserted_at: timestamp, ...values })
        .execute();
    return { row: await trx.selectFrom("suggestions").selectAll().where("id", "=", id).executeTakeFirstOrThrow(), created: !existing };
  });
}
