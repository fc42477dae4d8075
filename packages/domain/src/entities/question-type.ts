import { UnknownQuestionTypeError } from "../messages.js";

export const QUESTION_TYPES = ["label_selection", "multi_label_selection", "ranking", "text", "span", "rating"] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export function isQuestionType(value: string): value is QuestionType {
  return (QUESTION_TYPES as readonly string[]).includes(value);
}

/** Narrows a type string, throwing 'Question answer for type {type} is not implemented yet.' when unknown. */
export function assertQuestionType(value: string): QuestionType {
  if (!isQuestionType(value)) throw new UnknownQuestionTypeError(value);
  return value;
}
