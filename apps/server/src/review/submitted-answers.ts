import { sql, type Kysely } from "kysely";
import type { AnswerValue } from "@tessera/domain";
import type { DB } from "../db/schema.js";
import type { ReviewScope } from "./scope.js";

export interface SubmittedResponse { userId: string; values: Record<string, AnswerValue>; updatedAt: string }
export interface RecordSubmissions { recordId: string; responses: SubmittedResponse[] }

/** `{question: {"value": V}}` -> `{question: V}` (null and malformed entries left out). */
export function unwrapValues(json: string | null): Record<string, AnswerValue> {
  if (json === null) return {};
  const out: Record<string, AnswerValue> = {};
  try {
    for (const [name, entry] of Object.entries(JSON.parse(json) as Record<string, { value?: unknown } | null>)) {
      if (entry && typeof entry === "object" && entry.value !== undefined && entry.value !== null) out[name] = entry.value as AnswerValue;
    }
  } catch {
    return {};
  }
  return out;
}

/**
 * The submitted responses of a dataset's records in the scope (records filtered, annotators chosen),
 * grouped by record in insertion order. One pass over the dataset's records and their responses
 * (the records' (dataset_id, seq) index, then responses by record): 300K responses of 100K records
 * come back in one query.
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
    current.responses.push({ userId: row.user_id, values: unwrapValues(row.values), updatedAt: row.updated_at });
  }
  return out;
}

/** Record ids of the dataset that have a final answer. */
export async function finalAnswerIds(db: Kysely<DB>, datasetId: string): Promise<Set<string>> {
  const rows = await db.selectFrom("record_final_answers").select("record_id").where("dataset_id", "=", datasetId).execute();
  return new Set(rows.map((r) => r.record_id));
}
