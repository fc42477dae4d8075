import { disagreeingRecordIds, reviewProgress } from "@tessera/domain";
import type { DatasetSchema } from "../records/dataset-schema.js";
import { annotatedRecords, type RecordSubmissions } from "./submitted-answers.js";

/** Records of `submissions` whose submitted answers differ on `only` (a question name) or on any question. */
export function disagreeingRecords(schema: DatasetSchema, submissions: RecordSubmissions[], only?: string): Set<string> {
  const out = new Set<string>();
  for (const q of schema.questions) {
    if (only !== undefined && q.name !== only) continue;
    for (const id of disagreeingRecordIds(q.settings.type, annotatedRecords(submissions, q.name, q.settings.type))) out.add(id);
  }
  return out;
}

/** Review progress of a scope: records with a final answer, of those disagreeing or with a final answer (domain rule), among the scope's answered records. */
export function scopeProgress(submissions: RecordSubmissions[], finals: Set<string>, disagreeing: Set<string>): { reviewed: number; needing_review: number } {
  const progress = reviewProgress(submissions.map((s) => ({ disagrees: disagreeing.has(s.recordId), hasFinalAnswer: finals.has(s.recordId) })));
  return { reviewed: progress.reviewed, needing_review: progress.needingReview };
}
