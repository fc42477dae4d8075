import { disagreeingRecordIds, reviewProgress } from "@tessera/domain";
import type { DatasetSchema, QuestionDef } from "../records/dataset-schema.js";
import { annotatedRecords, type Submissions } from "./submitted-answers.js";

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

/** Review progress of a scope: records with a final answer, of those disagreeing or with a final answer (domain rule), among the scope's answered records. */
export function scopeProgress(
  submissions: Submissions,
  finals: Set<string>,
  disagreeing: Set<string>,
): { reviewed: number; needing_review: number } {
  const progress = reviewProgress(
    submissions.records.map((s) => ({ disagrees: disagreeing.has(s.recordId), hasFinalAnswer: finals.has(s.recordId) })),
  );
  return { reviewed: progress.reviewed, needing_review: progress.needingReview };
}
