import { UnknownQuestionTypeError } from "../messages.js";

/**
 * The question types, in the contract's order (api-contract.md 3.6; the server lists them in this order
 * when it refuses an unknown `type`, as the reference server does).
 */
export const QUESTION_TYPES = ["text", "rating", "label_selection", "multi_label_selection", "ranking", "span"] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export function isQuestionType(value: string): value is QuestionType {
  return (QUESTION_TYPES as readonly string[]).includes(value);
}

/** Narrows a type string, throwing 'Question answer for type {type} is not implemented yet.' when unknown. */
export function assertQuestionType(value: string): QuestionType {
  if (!isQuestionType(value)) throw new UnknownQuestionTypeError(value);
  return value;
}
