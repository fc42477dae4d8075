import type { AnswerValue } from "../entities/answer.js";
import type { QuestionType } from "../entities/question-type.js";
import { answerKey, isGivenAnswer } from "./answer-key.js";

/** The shape the review rules read: a question and the submitted answers of a record, by annotator. */
export interface ReviewQuestion {
  name: string;
  type: QuestionType;
}
export interface SubmittedAnswers {
  userId: string;
  values: { [questionName: string]: AnswerValue | null | undefined };
}

/**
 * A record disagrees on a question when two or more of its submitted responses answer it and not
 * all of those answers are equal (canonical equality, see `answerKey`). A question answered by one
 * annotator only is no disagreement: there is nobody to disagree with.
 */
export function disagreesOn(question: ReviewQuestion, responses: readonly SubmittedAnswers[]): boolean {
  return differ(
    question.type,
    responses.map((r) => r.values[question.name]),
  );
}

/** Whether two or more given answers are not all equal. */
function differ(type: QuestionType, values: readonly (AnswerValue | null | undefined)[]): boolean {
  let first: string | null = null;
  for (const value of values) {
    if (!isGivenAnswer(type, value)) continue;
    const key = answerKey(type, value);
    if (first === null) first = key;
    else if (key !== first) return true;
  }
  return false;
}

/** The records (of one question's answers, as `questionAgreement` reads them) that disagree on it. */
export function disagreeingRecordIds(
  type: QuestionType,
  records: readonly { recordId: string; answers: readonly { value: AnswerValue }[] }[],
): string[] {
  const out: string[] = [];
  for (const record of records)
    if (
      record.answers.length >= 2 &&
      differ(
        type,
        record.answers.map((a) => a.value),
      )
    )
      out.push(record.recordId);
  return out;
}

/** The questions a record disagrees on (all of them when `only` is not given, else that one). */
export function disagreementsOf(questions: readonly ReviewQuestion[], responses: readonly SubmittedAnswers[], only?: string): string[] {
  return questions.filter((q) => (only === undefined || q.name === only) && disagreesOn(q, responses)).map((q) => q.name);
}

/**
 * Review progress: a record needs review when it disagrees on some question or already has a
 * final answer (a reviewer may settle a record that agrees); it is reviewed when it has a final answer.
 */
export interface ReviewProgress {
  reviewed: number;
  needingReview: number;
}

export function reviewProgress(records: readonly { disagrees: boolean; hasFinalAnswer: boolean }[]): ReviewProgress {
  let reviewed = 0;
  let needingReview = 0;
  for (const r of records) {
    if (r.hasFinalAnswer) reviewed++;
    if (r.hasFinalAnswer || r.disagrees) needingReview++;
  }
  return { reviewed, needingReview };
}
