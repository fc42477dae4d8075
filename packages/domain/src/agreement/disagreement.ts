import type { AnswerValue } from "../entities/answer.js";
import type { QuestionType } from "../entities/question-type.js";
import { answerKey, isGivenAnswer } from "./answer-key.js";

/** The shape the review rules read: a question and the submitted answers of a record, by annotator. */
export interface ReviewQuestion { name: string; type: QuestionType }
export interface SubmittedAnswers { userId: string; values: { [questionName: string]: AnswerValue | null | undefined } }

/**
 * A record disagrees on a question when two or more of its submitted responses answer it and not
 * all of those answers are equal (canonical equality, see `answerKey`). A question answered by one
 * annotator only is no disagreement: there is nobody to disagree with.
 */
export function disagreesOn(question: ReviewQuestion, responses: readonly SubmittedAnswers[]): boolean {
  const keys = new Set<string>();
  let answered = 0;
  for (const response of responses) {
    const value = response.values[question.name];
    if (!isGivenAnswer(question.type, value)) continue;
    answered++;
    keys.add(answerKey(question.type, value));
    if (keys.size > 1) return true;
  }
  return answered >= 2 && keys.size > 1;
}

/** The questions a record disagrees on (all of them when `only` is not given, else that one). */
export function disagreementsOf(questions: readonly ReviewQuestion[], responses: readonly SubmittedAnswers[], only?: string): string[] {
  return questions.filter((q) => (only === undefined || q.name === only) && disagreesOn(q, responses)).map((q) => q.name);
}

/**
 * Review progress: a record needs review when it disagrees on some question or already has a
 * final answer (a reviewer may settle a record that agrees); it is reviewed when it has a final answer.
 */
export interface ReviewProgress { reviewed: number; needingReview: number }

export function reviewProgress(records: readonly { disagrees: boolean; hasFinalAnswer: boolean }[]): ReviewProgress {
  let reviewed = 0;
  let needingReview = 0;
  for (const r of records) {
    if (r.hasFinalAnswer) reviewed++;
    if (r.hasFinalAnswer || r.disagrees) needingReview++;
  }
  return { reviewed, needingReview };
}
