import { sql, type Kysely } from "kysely";
import { isGivenAnswer, type AnnotatedRecord, type AnswerValue, type QuestionType } from "@tessera/domain";
import type { DB } from "../db/schema.js";
import type { ReviewScope } from "./scope.js";

/** A response's values as stored, `{question: {"value": V}}`, parsed once and read in place. */
export type StoredValues = Record<string, { value?: unknown } | null | undefined>;
export interface SubmittedResponse { userId: string; values: StoredValues; updatedAt: string }
export interface RecordSubmissions { recordId: string; responses: SubmittedResponse[] }

export function parseValues(json: string | null): StoredValues {
  if (json === null) return {};
  try {
    const parsed = JSON.parse(json) as unknown;
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? parsed as StoredValues : {};
  } catch {
    return {};
  }
}

/** The answer to one question in stored values (undefined when absent or null). */
export function answerIn(values: StoredValues, question: string): AnswerValue | undefined {
  const entry = values[question];
  return entry && typeof entry === "object" && entry.value !== undefined && entry.value !== null ? entry.value as AnswerValue : undefined;
}

/** `{question: {"value": V}}` -> `{question: V}` (null and malformed entries left out). */
export function unwrapValues(json: string | null): Record<string, AnswerValue> {
  const values = parseValues(json);
  const out: Record<string, AnswerValue> = {};
  for (const name of Object.keys(values)) {
    const value = answerIn(values, name);
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/**
 * The submitted responses of a dataset's records in the scope (records filtered, annotators chosen),
 * grouped by record in insertion order. One pass over the dataset's records and their responses
 * (the records' (dataset_id, seq) index, then responses by record): 300K responses of 100K records
 * come back in one query. Values are parsed once and read in place (no copies: at 300K responses
 * the garbage collector was the largest cost).
 */
export async function loadSubmissions(db: Kysely<DB>, scope: ReviewScope): Promise<RecordSubmissions[]> {
  const rows = (await sql<{ record_id: string; user_id: string; values: string | null; updated_at: string }>`
    SELECT s.record_id AS record_id, s.user_id AS user_id, s."values" AS "values", s.updated_at AS updated_at
    FROM records r JOIN responses s ON s.record_id = r.id
    WHERE r.dataset_id = ${scope.dataset.id} AND s.status = 'submitted'
    ORDER BY r.seq`.execute(db)).rows;
  const out: RecordSubmissions[] = [];
  let current: RecordSubmissions | null = null;
  for (const row of rows) {
    if (scope.recordIds && !scope.recordIds.has(row.record_id)) continue;
    if (scope.userIds && !scope.userIds.has(row.user_id)) continue;
    if (!current || current.recordId !== row.record_id) {
      current = { recordId: row.record_id, responses: [] };
      out.push(current);
    }
    current.responses.push({ userId: row.user_id, values: parseValues(row.values), updatedAt: row.updated_at });
  }
  return out;
}

/** One question's given answers per record, in the shape the domain's agreement rules read. */
export function annotatedRecords(submissions: RecordSubmissions[], question: string, type: QuestionType, textOf?: (recordId: string) => string | undefined): AnnotatedRecord[] {
  const out: AnnotatedRecord[] = new Array(submissions.length);
  for (let i = 0; i < submissions.length; i++) {
    const record = submissions[i]!;
    const answers: AnnotatedRecord["answers"] = [];
    for (const response of record.responses) {
      const value = answerIn(response.values, question);
      if (isGivenAnswer(type, value)) answers.push({ userId: response.userId, value });
    }
    const text = textOf && answers.length >= 2 ? textOf(record.recordId) : undefined;
    out[i] = text === undefined ? { recordId: record.recordId, answers } : { recordId: record.recordId, answers, text };
  }
  return out;
}

/** Record ids of the dataset that have a final answer. */
export async function finalAnswerIds(db: Kysely<DB>, datasetId: string): Promise<Set<string>> {
  const rows = await db.selectFrom("record_final_answers").select("record_id").where("dataset_id", "=", datasetId).execute();
  return new Set(rows.map((r) => r.record_id));
}
