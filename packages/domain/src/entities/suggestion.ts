import { SUGGESTION_SCORE_DECIMALS } from "../constants.js";
import type { AnswerValue, OptionValue, RankingItem, SpanItem } from "./answer.js";
import type { QuestionType } from "./question-type.js";

export interface SuggestionProps {
  id: string;
  questionId: string;
  /** Filled from the question when the wire does not say. */
  questionType?: QuestionType;
  value: AnswerValue;
  /** A single score, or one per item for multi-label, ranking and span. */
  score: number | number[] | null;
  agent: string | null;
}

/** A model's suggested answer to a question. */
export class Suggestion {
  constructor(readonly props: SuggestionProps) {}

  get id(): string {
    return this.props.id;
  }
  get questionId(): string {
    return this.props.questionId;
  }
  get questionType(): QuestionType | undefined {
    return this.props.questionType;
  }
  get suggestedAnswer(): AnswerValue {
    return this.props.value;
  }
  get agent(): string | null {
    return this.props.agent;
  }
  get score(): number | number[] | null {
    return this.props.score;
  }

  /** Whether an option value is part of the suggestion (label, multi-label, rating, ranking). */
  isSuggested(value: OptionValue): boolean {
    const v = this.props.value;
    if (Array.isArray(v)) {
      return (v as unknown[]).some((item) =>
        typeof item === "object" && item !== null ? (item as RankingItem).value === value : item === value,
      );
    }
    return v === value;
  }

  /** The score of one item: per item for multi-label and ranking, the single score otherwise. */
  scoreFor(value?: OptionValue): number | null {
    const s = this.props.score;
    if (!Array.isArray(s)) return s;
    const v = this.props.value;
    if (!Array.isArray(v) || value === undefined) return null;
    const index = (v as unknown[]).findIndex((item) =>
      typeof item === "object" && item !== null ? (item as RankingItem).value === value : item === value,
    );
    return index >= 0 ? (s[index] ?? null) : null;
  }

  /** The suggested rank of a ranking option. */
  rankFor(value: string): number | null {
    const v = this.props.value;
    if (!Array.isArray(v)) return null;
    const item = (v as unknown[]).find((i): i is RankingItem => typeof i === "object" && i !== null && (i as RankingItem).value === value);
    return item?.rank ?? null;
  }

  /** Span suggestions match on label, start and end. */
  spanFor(span: SpanItem): { span: SpanItem; score: number | null } | null {
    const v = this.props.value;
    if (!Array.isArray(v)) return null;
    const index = (v as unknown[]).findIndex((i) => {
      const item = i as SpanItem;
      return typeof i === "object" && i !== null && item.label === span.label && item.start === span.start && item.end === span.end;
    });
    if (index < 0) return null;
    const s = this.props.score;
    return { span: v[index] as SpanItem, score: Array.isArray(s) ? (s[index] ?? null) : s };
  }

  /** A score shown with 1 decimal. */
  static formatScore(score: number | null): string {
    return score === null ? "" : score.toFixed(SUGGESTION_SCORE_DECIMALS);
  }
}
