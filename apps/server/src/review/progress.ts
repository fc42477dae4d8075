import type { Kysely } from "kysely";
import { disagreeingRecordIds, reviewProgress } from "@tessera/domain";
import type { DB } from "../db/schema.js";
import type { DatasetSchema, QuestionDef } from "../records/dataset-schema.js";
import { annotatedRecords, loadSubmissions, type Submissions } from "./submitted-answers.js";
import { figuresCache, scopeKey } from "./agreement-cache.js";
import type { ReviewScope } from "./scope.js";

/** The questions a scope reads: the one asked for, else all of the dataset's. */
export function questionsOf(schema: DatasetSchema, only: QuestionDef | null): { name: string; type: QuestionDef["settings"]["type"] }[] {
  return (only ? [only] : schema.questions).map((q) => ({ name: q.name, type: q.settings.type }));
}

/** Records whose submitted answers differ on one of the loaded questions. */
export function disagreeingRecords(submissions: Submissions): Set<string> {
  const out = new Set<string>();
  submissions.questions.forEach((q, i) => {
    for (const id of disagreeingRecordIds(q.type, annotatedRecords(submissions, i))) out.add(id);
  });
  return out;
}

/** The records of a scope that were answered (insertion order) and those whose submitted answers differ. */
export interface ScopeSummary {
  recordIds: string[];
  disagreeing: Set<string>;
}

/** A scope's summary, from the cache while the dataset's answers and the scope are unchanged (review/agreement-cache.ts). */
export async function scopeSummary(db: Kysely<DB>, scope: ReviewScope): Promise<ScopeSummary> {
  const key = `summary:${await scopeKey(db, scope)}`;
  return figuresCache.through(
    key,
    async () => {
      const submissions = await loadSubmissions(db, scope, questionsOf(scope.schema, scope.question));
      return { recordIds: submissions.records.map((r) => r.recordId), disagreeing: disagreeingRecords(submissions) };
    },
    (summary) => summary.recordIds.length + 1,
  );
}

/** Review progress of a scope: records with a final answer, of those disagreeing or with a final answer (domain rule), among the scope's answered records. */
export function summaryProgress(summary: ScopeSummary, finals: Set<string>): { reviewed: number; needing_review: number } {
  const progress = reviewProgress(
    summary.recordIds.map((id) => ({ disagrees: summary.disagreeing.has(id), hasFinalAnswer: finals.has(id) })),
  );
  return { reviewed: progress.reviewed, needing_review: progress.needingReview };
}
