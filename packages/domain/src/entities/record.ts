import { RECORD_SCORE_DECIMALS, roundTo } from "../constants.js";
import type { AnswerValues, RecordResponse, ResponseStatus } from "./answer.js";
import { Field, type FieldProps, type RecordField } from "./field.js";
import { Question, type QuestionProps } from "./question.js";
import { Suggestion, type SuggestionProps } from "./suggestion.js";

export type RecordStatus = "pending" | ResponseStatus;
/** The record's task-distribution status: 'completed' once it has the minimum number of submitted responses. */
export type TaskDistributionStatus = "pending" | "completed";

export interface RecordProps {
  id: string;
  datasetId: string;
  /** Raw field values by field name. */
  fields: { [name: string]: unknown };
  metadata: { [name: string]: unknown } | null;
  /** The user's response (the first item of the wire's responses), if any. */
  response: RecordResponse | null;
  suggestions: SuggestionProps[];
  insertedAt: string;
  updatedAt: string;
  /** query_score; null when the query had no score. */
  queryScore: number | null;
  taskStatus: TaskDistributionStatus;
  externalId?: string | null;
}

/** A record's similarity/search score: a percentage with 1 decimal; negative means none. */
export class RecordScore {
  constructor(readonly value: number) {}
  get hasScore(): boolean {
    return this.value >= 0;
  }
  get percentage(): number {
    return this.hasScore ? roundTo(this.value * 100, RECORD_SCORE_DECIMALS) : -1;
  }
}

/**
 * A record of a dataset with its own question copies (answer state), its fields with content,
 * suggestions, the saved answer and the queue page it sits on.
 */
export class DatasetRecord {
  readonly id: string;
  readonly datasetId: string;
  readonly page: number;
  readonly metadata: { [name: string]: unknown };
  readonly insertedAt: string;
  readonly updatedAt: string;
  readonly score: RecordScore;
  readonly externalId: string | null;
  taskStatus: TaskDistributionStatus;
  answer: RecordResponse | null;
  readonly suggestions: Suggestion[];
  readonly questions: Question[];
  readonly fields: RecordField[];
  private baseline = "";

  constructor(props: RecordProps, questions: QuestionProps[], fields: FieldProps[], page: number) {
    this.id = props.id;
    this.datasetId = props.datasetId;
    this.page = page;
    this.metadata = props.metadata ?? {};
    this.insertedAt = props.insertedAt;
    this.updatedAt = props.updatedAt;
    this.score = new RecordScore(props.queryScore ?? -1);
    this.externalId = props.externalId ?? null;
    this.taskStatus = props.taskStatus;
    this.answer = props.response;
    this.suggestions = props.suggestions.map(
      (s) => new Suggestion({ ...s, questionType: s.questionType ?? questions.find((q) => q.id === s.questionId)?.settings.type }),
    );
    this.questions = questions.map(
      (q) =>
        new Question(
          q,
          this.suggestions.find((s) => s.questionId === q.id),
        ),
    );
    this.fields = fields.map((f) => {
      const field = new Field(f);
      return { field, name: f.name, title: f.title, content: field.contentFrom(props.fields[f.name]) };
    });
  }

  /** pending (no response), draft, submitted or discarded. */
  get status(): RecordStatus {
    return this.answer?.status ?? "pending";
  }
  get isPending(): boolean {
    return this.status === "pending";
  }
  get isSubmitted(): boolean {
    return this.status === "submitted";
  }
  get isDraft(): boolean {
    return this.status === "draft";
  }
  get isDiscarded(): boolean {
    return this.status === "discarded";
  }
  /** Shown as complete when it has the minimum number of responses. */
  get isCompleted(): boolean {
    return this.taskStatus === "completed";
  }

  field(name: string): RecordField | undefined {
    return this.fields.find((f) => f.name === name);
  }
  question(name: string): Question | undefined {
    return this.questions.find((q) => q.name === name);
  }

  /**
   * Fills the answers: a pending record from its suggestions (in bulk mode only span suggestions
   * are kept), any other record from its saved answer. Then snapshots the change baseline.
   */
  initialize(bulkMode = false): void {
    for (const q of this.questions) {
      q.answer.clear();
      if (this.isPending) {
        if (!bulkMode || q.type === "span") q.fillFromSuggestion();
      } else if (this.answer && this.answer.values[q.name] !== undefined) {
        q.answer.set(this.answer.values[q.name]);
      }
    }
    this.resetBaseline();
  }

  private snapshot(): string {
    return JSON.stringify(this.questions.map((q) => q.answer.snapshot()));
  }
  private resetBaseline(): void {
    this.baseline = this.snapshot();
  }

  /** Whether the answers differ from the baseline (the last load or save). */
  get isModified(): boolean {
    return this.snapshot() !== this.baseline;
  }

  /** Reset: back to the baseline answers. */
  reset(): void {
    const saved = JSON.parse(this.baseline) as string[];
    this.questions.forEach((q, i) => q.answer.restore(saved[i] ?? "null"));
  }

  /** Clear: removes all answers (locally). */
  clear(): void {
    for (const q of this.questions) q.answer.clear();
  }

  /** Copies the current answers of another record with the same questions (bulk mode). */
  answerWith(other: DatasetRecord): void {
    for (const q of this.questions) {
      const source = other.question(q.name);
      if (source) q.answer.set(source.answer.value);
    }
  }

  /** All required questions answered and the optional ones valid. */
  get questionsAreCompletedCorrectly(): boolean {
    return this.questions.every((q) => (q.isRequired ? q.answer.isValid : q.answer.hasValidValues));
  }

  /** Whether a draft can be saved: every answer is valid, partially valid or empty. */
  get hasAnyAnswer(): boolean {
    return this.questions.some((q) => q.answer.isAnswered);
  }

  /** The values to send for a status: only valid (or, for drafts and discards, partially valid) answers. */
  valuesFor(status: ResponseStatus): AnswerValues {
    const values: AnswerValues = {};
    for (const q of this.questions) {
      const v = q.answer.valueToSend(status === "submitted");
      if (v !== undefined) values[q.name] = v;
    }
    return values;
  }

  /** Stores the returned answer and resets the change baseline. */
  answerSaved(response: RecordResponse): void {
    this.answer = response;
    this.resetBaseline();
  }

  /** After the response is deleted: no answer, status pending, answers cleared. */
  markPending(): void {
    this.answer = null;
    this.clear();
    this.resetBaseline();
  }
}
