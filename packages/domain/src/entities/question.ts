import { QUESTION_DESCRIPTION_MAX, QUESTION_TITLE_MAX, VISIBLE_OPTIONS_MIN_OPTIONS } from "../constants.js";
import { MESSAGES, maxLengthMessage, type Message } from "../messages.js";
import { colorForLabel, isHslColor } from "./color.js";
import type { AnswerValue, OptionValue, RankingItem, SpanItem } from "./answer.js";
import { assertQuestionType, type QuestionType } from "./question-type.js";
import type { Suggestion } from "./suggestion.js";
import { answerViolation } from "../rules/answer-rules.js";

export interface QuestionOption {
  value: OptionValue;
  text?: string;
  description?: string | null;
  /** Span options: an HSL colour; generated from the label when absent. */
  color?: string;
}

export interface QuestionSettings {
  type: QuestionType;
  use_markdown?: boolean;
  visible_options?: number | null;
  options?: QuestionOption[];
  options_order?: "suggestion" | "natural";
  allow_overlapping?: boolean;
  allow_character_annotation?: boolean;
  /** Span questions: the text field they annotate. */
  field?: string;
}

export interface QuestionProps {
  id: string;
  name: string;
  datasetId: string;
  title: string;
  description?: string | null;
  required: boolean;
  settings: QuestionSettings;
  updatedAt?: string;
}

/** The current answer of one question, with the validity rules of spec section 4. */
export class QuestionAnswer {
  private current: AnswerValue | null = null;

  constructor(
    readonly type: QuestionType,
    private readonly optionValues: () => OptionValue[],
    private readonly spanRules: () => { allowOverlapping?: boolean; spanField?: string } = () => ({}),
  ) {
    assertQuestionType(type);
    this.clear();
  }

  get value(): AnswerValue | null {
    return this.current;
  }

  /** Sets a value; a ranking is merged onto the options (unranked ones keep rank null). */
  set(value: AnswerValue | null | undefined): void {
    if (value === null || value === undefined) return this.clear();
    switch (this.type) {
      case "ranking": {
        const given = new Map((value as RankingItem[]).map((i) => [String(i.value), i.rank ?? null]));
        this.current = this.optionValues().map((v) => ({ value: String(v), rank: given.get(String(v)) ?? null }));
        return;
      }
      case "multi_label_selection":
      case "span":
        this.current = [...(value as unknown[])] as AnswerValue;
        return;
      default:
        this.current = value;
    }
  }

  clear(): void {
    switch (this.type) {
      case "text":
        this.current = "";
        break;
      case "multi_label_selection":
      case "span":
        this.current = [];
        break;
      case "ranking":
        this.current = this.optionValues().map((v) => ({ value: String(v), rank: null }));
        break;
      default:
        this.current = null;
    }
  }

  private get rankedCount(): number {
    return (this.current as RankingItem[]).filter((i) => i.rank !== null).length;
  }

  /**
   * Whether the answer can be submitted: the domain's answer rules for a submitted response, the
   * same the server applies (rules/answer-rules.ts). text non-empty; label, multi-label and rating
   * a selection among the options; span always (the form places spans within the text); ranking
   * complete.
   */
  get isValid(): boolean {
    if (this.type === "ranking" && (this.current as RankingItem[]).length === 0) return false;
    const question = { type: this.type, optionValues: this.optionValues(), ...this.spanRules() };
    return answerViolation(question, this.current, { status: "submitted" }) === null;
  }

  /** Ranking only: some but not all options ranked. */
  get isPartiallyValid(): boolean {
    if (this.type !== "ranking") return false;
    const n = this.rankedCount;
    return n > 0 && n < (this.current as RankingItem[]).length;
  }

  /** Ranking has valid values when none or all are ranked; other types always do. */
  get hasValidValues(): boolean {
    if (this.type !== "ranking") return true;
    const n = this.rankedCount;
    return n === 0 || n === (this.current as RankingItem[]).length;
  }

  /** Whether the user has given any answer. */
  get isAnswered(): boolean {
    if (this.type === "span") return (this.current as SpanItem[]).length > 0;
    if (this.type === "ranking") return this.rankedCount > 0;
    return this.isValid;
  }

  /**
   * The value to send: only valid or partially valid answers are sent; submission needs a valid
   * answer (a full ranking), drafts may carry a partial ranking (its ranked items).
   */
  valueToSend(forSubmission: boolean): AnswerValue | undefined {
    if (this.isValid) return this.current ?? undefined;
    if (!forSubmission && this.isPartiallyValid) return (this.current as RankingItem[]).filter((i) => i.rank !== null);
    return undefined;
  }

  snapshot(): string {
    return JSON.stringify(this.current);
  }
  restore(snapshot: string): void {
    this.current = JSON.parse(snapshot) as AnswerValue | null;
  }
}

/** A question of a dataset. Each record owns its own copies (each holds its answer state). */
export class Question {
  readonly id: string;
  readonly name: string;
  readonly datasetId: string;
  readonly isRequired: boolean;
  title: string;
  description: string;
  settings: QuestionSettings;
  updatedAt: string | undefined;
  readonly answer: QuestionAnswer;
  suggestion: Suggestion | undefined;
  private original: { title: string; description: string; settings: string };

  constructor(props: QuestionProps, suggestion?: Suggestion) {
    this.id = props.id;
    this.name = props.name;
    this.datasetId = props.datasetId;
    this.isRequired = props.required;
    this.title = props.title.trim();
    this.description = (props.description ?? "").trim();
    this.settings = structuredClone(props.settings);
    this.updatedAt = props.updatedAt;
    this.suggestion = suggestion;
    this.answer = new QuestionAnswer(
      props.settings.type,
      () => (this.settings.options ?? []).map((o) => o.value),
      () => ({
        allowOverlapping: this.settings.allow_overlapping ?? false,
        ...(this.settings.field ? { spanField: this.settings.field } : {}),
      }),
    );
    this.original = this.snapshotSettings();
  }

  get type(): QuestionType {
    return this.settings.type;
  }
  get required(): boolean {
    return this.isRequired;
  }

  /** Options, with a generated HSL colour for span options that have none. */
  get options(): QuestionOption[] {
    const options = this.settings.options ?? [];
    if (this.type !== "span") return options;
    return options.map((o) => ({ ...o, color: o.color ?? colorForLabel(o.text ?? String(o.value)) }));
  }

  /** visible_options defaults to the number of options. */
  get visibleOptions(): number {
    return this.settings.visible_options ?? this.options.length;
  }

  /** The visible-options setting shows only with more than 3 options and a value set. */
  get showVisibleOptions(): boolean {
    return (
      this.options.length > VISIBLE_OPTIONS_MIN_OPTIONS &&
      this.settings.visible_options !== undefined &&
      this.settings.visible_options !== null
    );
  }

  /** With options_order 'suggestion', suggested options come first by descending score. */
  get orderedOptions(): QuestionOption[] {
    const options = this.options;
    const s = this.suggestion;
    if (this.settings.options_order !== "suggestion" || !s) return options;
    const suggested = options.filter((o) => s.isSuggested(o.value)).sort((a, b) => (s.scoreFor(b.value) ?? 0) - (s.scoreFor(a.value) ?? 0));
    return [...suggested, ...options.filter((o) => !s.isSuggested(o.value))];
  }

  get useMarkdown(): boolean {
    return this.settings.use_markdown ?? false;
  }

  /** Prefill from the suggestion (pending records). */
  fillFromSuggestion(): void {
    if (this.suggestion) this.answer.set(this.suggestion.suggestedAnswer);
  }

  // ---- settings editing ----

  private snapshotSettings() {
    return { title: this.title, description: this.description, settings: JSON.stringify(this.settings) };
  }

  get isModified(): boolean {
    const now = this.snapshotSettings();
    return now.title !== this.original.title || now.description !== this.original.description || now.settings !== this.original.settings;
  }

  validate(): { title: Message[]; description: Message[]; options: Message[] } {
    const title: Message[] = [];
    if (this.title.trim() === "") title.push(MESSAGES.required);
    if (this.title.length > QUESTION_TITLE_MAX) title.push(maxLengthMessage(QUESTION_TITLE_MAX));
    const description = this.description.length > QUESTION_DESCRIPTION_MAX ? [maxLengthMessage(QUESTION_DESCRIPTION_MAX)] : [];
    const options = (this.settings.options ?? []).some((o) => o.color !== undefined && !isHslColor(o.color))
      ? [MESSAGES.colorMustBeHsl]
      : [];
    return { title, description, options };
  }

  get isValid(): boolean {
    const v = this.validate();
    return v.title.length + v.description.length + v.options.length === 0;
  }

  /** A description blank after trimming is sent as null. */
  get descriptionForUpdate(): string | null {
    return this.description.trim() === "" ? null : this.description.trim();
  }

  restore(): void {
    this.title = this.original.title;
    this.description = this.original.description;
    this.settings = JSON.parse(this.original.settings) as QuestionSettings;
  }

  commit(updatedAt?: string): void {
    if (updatedAt !== undefined) this.updatedAt = updatedAt;
    this.title = this.title.trim();
    this.description = this.description.trim();
    this.original = this.snapshotSettings();
  }

  toProps(): QuestionProps {
    return {
      id: this.id,
      name: this.name,
      datasetId: this.datasetId,
      title: this.title,
      description: this.description,
      required: this.isRequired,
      settings: structuredClone(this.settings),
      ...(this.updatedAt ? { updatedAt: this.updatedAt } : {}),
    };
  }
}

/** Option rules of dataset creation (spec section 5). */
export function validateQuestionOptions(type: QuestionType, options: QuestionOption[]): Message[] {
  const errors: Message[] = [];
  if (type === "label_selection" || type === "multi_label_selection" || type === "span") {
    if (options.length < 2) errors.push(MESSAGES.atLeastTwoOptions);
    if (options.some((o) => String(o.text ?? o.value).trim() === "")) errors.push(MESSAGES.optionsWithoutLabel);
  }
  if (type === "rating" && options.length < 2) errors.push(MESSAGES.ratingAtLeastTwoOptions);
  return errors;
}
