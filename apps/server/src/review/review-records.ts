import type { Kysely } from "kysely";
import { disagreementsOf, majorityAnswer, type AnswerValue } from "@tessera/domain";
import type { DB } from "../db/schema.js";
import type { RecordRow } from "../records/read.js";
import type { DatasetSchema } from "../records/dataset-schema.js";
import { finalAnswerIds, unwrapValues } from "./submitted-answers.js";
import type { ReviewScope } from "./scope.js";
import { questionsOf, scopeSummary, summaryProgress } from "./progress.js";

type Wrapped = Record<string, { value: unknown }>;
const wrap = (values: Record<string, unknown>): Wrapped => Object.fromEntries(Object.entries(values).map(([k, value]) => [k, { value }]));

export interface FinalAnswerOut {
  values: Wrapped;
  reviewer: { id: string; username: string } | null;
  inserted_at: string;
  updated_at: string;
}

export interface ReviewItem {
  record: {
    id: string;
    external_id: string | null;
    fields: Record<string, unknown>;
    metadata: Record<string, unknown> | null;
    status: string;
    inserted_at: string;
    updated_at: string;
  };
  /** Every annotator's response (any status), with who and when. */
  responses: {
    id: string;
    user_id: string;
    username: string;
    status: string;
    values: Wrapped | null;
    inserted_at: string;
    updated_at: string;
  }[];
  suggestions: { question_id: string; question_name: string; value: unknown; score: unknown; agent: string | null; type: string | null }[];
  /** Questions whose submitted answers differ. */
  disagreements: string[];
  /** Majority of the submitted answers per question (questions without a majority left out). */
  majority: Wrapped;
  final_answer: FinalAnswerOut | null;
  /** The record has a final answer (the spec's `validated` label). */
  validated: boolean;
}

/** Full review items for the given records, in the given order. */
export async function reviewItems(db: Kysely<DB>, schema: DatasetSchema, records: RecordRow[]): Promise<ReviewItem[]> {
  if (records.length === 0) return [];
  const ids = records.map((r) => r.id);
  const [responses, suggestions, finals] = await Promise.all([
    db
      .selectFrom("responses as s")
      .innerJoin("users as u", "u.id", "s.user_id")
      .select(["s.id", "s.record_id", "s.user_id", "u.username", "s.status", "s.values", "s.inserted_at", "s.updated_at"])
      .where("s.record_id", "in", ids)
      .orderBy("s.inserted_at")
      .execute(),
    db
      .selectFrom("suggestions")
      .select(["record_id", "question_id", "value", "score", "agent", "type"])
      .where("record_id", "in", ids)
      .execute(),
    db
      .selectFrom("record_final_answers as f")
      .leftJoin("users as u", "u.id", "f.reviewer_id")
      .select(["f.record_id", "f.values", "f.reviewer_id", "u.username", "f.inserted_at", "f.updated_at"])
      .where("f.record_id", "in", ids)
      .execute(),
  ]);
  const questions = questionsOf(schema, null);
  return records.map((record) => {
    const own = responses.filter((r) => r.record_id === record.id);
    const submitted = own.filter((r) => r.status === "submitted").map((r) => ({ userId: r.user_id, values: unwrapValues(r.values) }));
    const majority: Record<string, AnswerValue> = {};
    for (const q of questions) {
      const value = majorityAnswer(
        q.type,
        submitted.map((s) => s.values[q.name]),
      );
      if (value !== undefined) majority[q.name] = value;
    }
    const final = finals.find((f) => f.record_id === record.id);
    return {
      record: {
        id: record.id,
        external_id: record.external_id,
        fields: JSON.parse(record.fields) as Record<string, unknown>,
        metadata: record.metadata === null ? null : (JSON.parse(record.metadata) as Record<string, unknown>),
        status: record.status,
        inserted_at: record.inserted_at,
        updated_at: record.updated_at,
      },
      responses: own.map((r) => ({
        id: r.id,
        user_id: r.user_id,
        username: r.username,
        status: r.status,
        values: r.values === null ? null : (JSON.parse(r.values) as Wrapped),
        inserted_at: r.inserted_at,
        updated_at: r.updated_at,
      })),
      suggestions: suggestions
        .filter((s) => s.record_id === record.id)
        .map((s) => ({
          question_id: s.question_id,
          question_name: schema.questionById.get(s.question_id)?.name ?? "",
          value: JSON.parse(s.value) as unknown,
          score: s.score === null ? null : (JSON.parse(s.score) as unknown),
          agent: s.agent,
          type: s.type,
        })),
      disagreements: disagreementsOf(questions, submitted),
      majority: wrap(majority),
      final_answer: final
        ? {
            values: JSON.parse(final.values) as Wrapped,
            reviewer: final.reviewer_id ? { id: final.reviewer_id, username: final.username ?? "" } : null,
            inserted_at: final.inserted_at,
            updated_at: final.updated_at,
          }
        : null,
      validated: final !== undefined,
    };
  });
}

export interface ReviewListOptions {
  disagreements: boolean;
  reviewed: boolean | null;
  offset: number;
  limit: number;
}

/**
 * The records to review in a scope: with `disagreements`, those whose submitted responses differ on
 * the scope's question (or on any question); `reviewed` keeps those with (true) or without (false)
 * a final answer. Insertion order. Also the review progress of the scope.
 */
export async function listReviewRecords(
  db: Kysely<DB>,
  scope: ReviewScope,
  options: ReviewListOptions,
): Promise<{ items: ReviewItem[]; total: number; review: { reviewed: number; needing_review: number } }> {
  const [summary, finals] = await Promise.all([scopeSummary(db, scope), finalAnswerIds(db, scope.dataset.id)]);
  const disagreeing = summary.disagreeing;
  let ids = summary.recordIds;
  if (options.disagreements) ids = ids.filter((id) => disagreeing.has(id));
  if (options.reviewed !== null) ids = ids.filter((id) => finals.has(id) === options.reviewed);
  const page = ids.slice(options.offset, options.offset + options.limit);
  const rows = page.length ? await db.selectFrom("records").selectAll().where("id", "in", page).execute() : [];
  const byId = new Map(rows.map((r) => [r.id, r]));
  return {
    items: await reviewItems(
      db,
      scope.schema,
      page.map((id) => byId.get(id)).filter((r): r is RecordRow => r !== undefined),
    ),
    total: ids.length,
    review: summaryProgress(summary, finals),
  };
}
