import { sql, type Kysely } from "kysely";
import { isGivenAnswer, type AnnotatedRecord, type AnswerValue, type QuestionType } from "@tessera/domain";
import type { DB } from "../db/schema.js";
import { isPostgres } from "../db/dialect.js";
import type { ReviewScope } from "./scope.js";

/** A response's values as stored, `{question: {"value": V}}`. */
export type StoredValues = Record<string, { value?: unknown } | null | undefined>;
/** A submitted response: its annotator and its answers to the loaded questions (by position, undefined when not answered). */
export interface SubmittedResponse {
  userId: string;
  answers: (AnswerValue | undefined)[];
}
export interface RecordSubmissions {
  recordId: string;
  responses: SubmittedResponse[];
}
/** What `loadSubmissions` read: the questions (in the order of `answers`) and the records. */
export interface Submissions {
  questions: { name: string; type: QuestionType }[];
  records: RecordSubmissions[];
}

export function parseValues(json: string | null): StoredValues {
  if (json === null) return {};
  try {
    const parsed = JSON.parse(json) as unknown;
    return parsed !== null && typeof parsed === "object" && !Array.isArray(parsed) ? (parsed as StoredValues) : {};
  } catch {
    return {};
  }
}

/** `{question: {"value": V}}` -> `{question: V}` (null and malformed entries left out). */
export function unwrapValues(json: string | null): Record<string, AnswerValue> {
  const values = parseValues(json);
  const out: Record<string, AnswerValue> = {};
  for (const [name, entry] of Object.entries(values)) {
    if (entry && typeof entry === "object" && entry.value !== undefined && entry.value !== null) out[name] = entry.value as AnswerValue;
  }
  return out;
}

/**
 * One extracted answer as JavaScript: SQLite's json_extract gives scalars natively and lists as
 * JSON text; PostgreSQL's #>> gives text (ratings back to numbers). A malformed list is no answer.
 */
function answerFrom(raw: unknown, type: QuestionType): AnswerValue | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (type === "multi_label_selection" || type === "ranking" || type === "span") {
    if (typeof raw !== "string") return undefined;
    try {
      return JSON.parse(raw) as AnswerValue;
    } catch {
      return undefined;
    }
  }
  if (type === "rating" && typeof raw === "string") return Number(raw);
  return raw as AnswerValue;
}

/**
 * The submitted answers of a dataset's records in the scope (records filtered, annotators chosen)
 * to the given questions, grouped by record in insertion order. One pass over the dataset's records
 * and their responses (the records' (dataset_id, seq) index, then responses by record); the answers
 * are extracted by the database (json_extract / #>>), one column per question, instead of parsing
 * every response's JSON in JavaScript: at 300K responses that parse and its garbage were the
 * largest cost of the agreement call.
 */
export async function loadSubmissions(
  db: Kysely<DB>,
  scope: ReviewScope,
  questions: readonly { name: string; type: QuestionType }[],
): Promise<Submissions> {
  const postgres = isPostgres(db);
  const columns = questions.map((q, i) =>
    postgres
      ? sql`s."values" #>> ${`{${JSON.stringify(q.name)},value}`} AS ${sql.ref(`a${i}`)}`
      : sql`json_extract(s."values", ${`$.${JSON.stringify(q.name)}.value`}) AS ${sql.ref(`a${i}`)}`,
  );
  const rows = (
    await sql<Record<string, unknown> & { record_id: string; user_id: string }>`
    SELECT s.record_id AS record_id, s.user_id AS user_id${columns.length ? sql`, ${sql.join(columns)}` : sql``}
    FROM records r JOIN responses s ON s.record_id = r.id
    WHERE r.dataset_id = ${scope.dataset.id} AND s.status = 'submitted'
    ORDER BY r.seq`.execute(db)
  ).rows;
  const records: RecordSubmissions[] = [];
  let current: RecordSubmissions | null = null;
  for (const row of rows) {
    if (scope.recordIds && !scope.recordIds.has(row.record_id)) continue;
    if (scope.userIds && !scope.userIds.has(row.user_id)) continue;
    if (!current || current.recordId !== row.record_id) {
      current = { recordId: row.record_id, responses: [] };
      records.push(current);
    }
    const answers = new Array<AnswerValue | undefined>(questions.length);
    for (let i = 0; i < questions.length; i++) answers[i] = answerFrom(row[`a${i}`], questions[i]!.type);
    current.responses.push({ userId: row.user_id, answers });
  }
  return { questions: [...questions], records };
}

/** One question's given answers per record (question at `index` of the loaded ones), in the shape the domain's agreement rules read. */
export function annotatedRecords(
  submissions: Submissions,
  index: number,
  textOf?: (recordId: string) => string | undefined,
): AnnotatedRecord[] {
  const type = submissions.questions[index]!.type;
  const out: AnnotatedRecord[] = new Array(submissions.records.length);
  for (let i = 0; i < submissions.records.length; i++) {
    const record = submissions.records[i]!;
    const answers: AnnotatedRecord["answers"] = [];
    for (const response of record.responses) {
      const value = response.answers[index];
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
