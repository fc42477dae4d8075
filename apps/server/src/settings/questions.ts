import { z } from "zod";
import {
  HSL_COLOR_PATTERN,
  OPTION_COUNT_LIMITS,
  QUESTION_TYPES,
  OPTION_TEXT_MAX_LENGTH,
  OPTION_VALUE_MAX_LENGTH,
  RATING_VALUE_MAX,
  RATING_VALUE_MIN,
  SPAN_COLOR_MAX_LENGTH,
  VISIBLE_OPTIONS_MIN,
  duplicateOptionValues,
  visibleOptionsViolation,
  type QuestionType,
} from "@tessera/domain";
import { descriptionSchema, pySet } from "./common.js";

/**
 * Question settings (contract 3.6). The create schemas fill the defaults; their output is exactly the
 * stored/returned wire shape kept in `questions.settings` (span adds the read-only
 * `allow_character_annotation: true`). The records engineer validates response and suggestion values
 * against the `QuestionSettings` union exported here.
 */

/** One settings schema per question type, listed in the domain's order (what 422 texts for an unknown `type` show). */
function inDomainOrder<S extends Record<QuestionType, z.ZodType<{ type: string }>>>(byType: S): [S[QuestionType], ...S[QuestionType][]] {
  return QUESTION_TYPES.map((type) => byType[type]) as unknown as [S[QuestionType], ...S[QuestionType][]];
}

// The rules themselves live in @tessera/domain (rules/question-settings-rules.ts); this file gives
// them the contract's request shapes and 422 wording.
export const LABEL_SELECTION_MAX_OPTIONS = OPTION_COUNT_LIMITS.label_selection.max;
export const RANKING_MAX_OPTIONS = OPTION_COUNT_LIMITS.ranking.max;
export const SPAN_MAX_OPTIONS = OPTION_COUNT_LIMITS.span.max;
export const MIN_VISIBLE_OPTIONS = VISIBLE_OPTIONS_MIN;

export const OptionSchema = z.object({
  value: z.string().min(1).max(OPTION_VALUE_MAX_LENGTH),
  text: z.string().min(1).max(OPTION_TEXT_MAX_LENGTH),
  description: descriptionSchema.nullable().default(null),
});
export type QuestionOption = z.infer<typeof OptionSchema>;

/** Span options may carry the colour the UI shows (spec section 3: HSL; generated from the label when absent). */
export const HSL_COLOR = HSL_COLOR_PATTERN;
export const SpanOptionSchema = OptionSchema.extend({
  color: z.string().max(SPAN_COLOR_MAX_LENGTH).regex(HSL_COLOR, { message: "The value color must be HSL for now." }).optional(),
});

export const RatingOptionSchema = z.object({ value: z.number().int().min(RATING_VALUE_MIN).max(RATING_VALUE_MAX) });
export type RatingOption = z.infer<typeof RatingOptionSchema>;

const uniqueValues = (options: readonly { value: string | number }[], ctx: z.RefinementCtx) => {
  const dup = duplicateOptionValues(options.map((o) => o.value));
  if (dup.length > 0) ctx.addIssue({ code: "custom", message: `Option values must be unique, found duplicates: ${pySet(dup)}`, path: [] });
};

const options = (min: number, max: number) => z.array(OptionSchema).min(min).max(max).superRefine(uniqueValues);
const spanOptions = (min: number, max: number) => z.array(SpanOptionSchema).min(min).max(max).superRefine(uniqueValues);
const visibleOptions = z
  .number()
  .int()
  .min(MIN_VISIBLE_OPTIONS, { message: `Input should be greater than or equal to ${MIN_VISIBLE_OPTIONS}` });

export const visibleOptionsMessage = (count: number) =>
  `the value for 'visible_options' must be less or equal to the number of items in 'options' (${count})`;

const checkVisible = (s: { options: readonly unknown[]; visible_options: number | null }, ctx: z.RefinementCtx) => {
  if (visibleOptionsViolation(s.visible_options, s.options.length)?.kind === "visibleOptions.overOptions") {
    ctx.addIssue({ code: "custom", message: visibleOptionsMessage(s.options.length), path: ["visible_options"] });
  }
};

export const TextQuestionSettingsSchema = z.object({ type: z.literal("text"), use_markdown: z.boolean().default(false) });
export const RatingQuestionSettingsSchema = z.object({
  type: z.literal("rating"),
  options: z.array(RatingOptionSchema).min(OPTION_COUNT_LIMITS.rating.min).max(OPTION_COUNT_LIMITS.rating.max).superRefine(uniqueValues),
});
export const LabelSelectionQuestionSettingsSchema = z
  .object({
    type: z.literal("label_selection"),
    options: options(OPTION_COUNT_LIMITS.label_selection.min, LABEL_SELECTION_MAX_OPTIONS),
    visible_options: visibleOptions.nullable().default(null),
  })
  .superRefine(checkVisible);
export const MultiLabelSelectionQuestionSettingsSchema = z
  .object({
    type: z.literal("multi_label_selection"),
    options: options(OPTION_COUNT_LIMITS.multi_label_selection.min, OPTION_COUNT_LIMITS.multi_label_selection.max),
    visible_options: visibleOptions.nullable().default(null),
    options_order: z.enum(["natural", "suggestion"]).default("natural"),
  })
  .superRefine(checkVisible);
export const RankingQuestionSettingsSchema = z.object({
  type: z.literal("ranking"),
  options: options(OPTION_COUNT_LIMITS.ranking.min, RANKING_MAX_OPTIONS),
});
export const SpanQuestionSettingsSchema = z
  .object({
    type: z.literal("span"),
    field: z.string().min(1).max(200),
    options: spanOptions(OPTION_COUNT_LIMITS.span.min, SPAN_MAX_OPTIONS),
    visible_options: visibleOptions.nullable().default(null),
    allow_overlapping: z.boolean().default(false),
  })
  .superRefine(checkVisible)
  .transform((s) => ({ ...s, allow_character_annotation: true as const }));

export const QuestionSettingsCreateSchema = z.discriminatedUnion(
  "type",
  inDomainOrder({
    text: TextQuestionSettingsSchema,
    rating: RatingQuestionSettingsSchema,
    label_selection: LabelSelectionQuestionSettingsSchema,
    multi_label_selection: MultiLabelSelectionQuestionSettingsSchema,
    ranking: RankingQuestionSettingsSchema,
    span: SpanQuestionSettingsSchema,
  }),
);

/** The stored/returned shape of question settings. */
export type QuestionSettings = z.output<typeof QuestionSettingsCreateSchema>;
export type TextQuestionSettings = z.output<typeof TextQuestionSettingsSchema>;
export type RatingQuestionSettings = z.output<typeof RatingQuestionSettingsSchema>;
export type LabelSelectionQuestionSettings = z.output<typeof LabelSelectionQuestionSettingsSchema>;
export type MultiLabelSelectionQuestionSettings = z.output<typeof MultiLabelSelectionQuestionSettingsSchema>;
export type RankingQuestionSettings = z.output<typeof RankingQuestionSettingsSchema>;
export type SpanQuestionSettings = z.output<typeof SpanQuestionSettingsSchema>;

/**
 * PATCH /questions/{id} settings: `type` is required (and must match the stored one); only the keys
 * the contract lists per type are applied; absent keys keep their stored values.
 */
export const QuestionSettingsUpdateSchema = z.discriminatedUnion(
  "type",
  inDomainOrder({
    text: z.object({ type: z.literal("text"), use_markdown: z.boolean().optional() }),
    rating: z.object({ type: z.literal("rating") }),
    label_selection: z.object({
      type: z.literal("label_selection"),
      visible_options: visibleOptions.nullable().optional(),
      options: options(OPTION_COUNT_LIMITS.label_selection.min, LABEL_SELECTION_MAX_OPTIONS).optional(),
    }),
    multi_label_selection: z.object({
      type: z.literal("multi_label_selection"),
      visible_options: visibleOptions.nullable().optional(),
      options: options(OPTION_COUNT_LIMITS.multi_label_selection.min, OPTION_COUNT_LIMITS.multi_label_selection.max).optional(),
      options_order: z.enum(["natural", "suggestion"]).optional(),
    }),
    ranking: z.object({ type: z.literal("ranking") }),
    span: z.object({
      type: z.literal("span"),
      visible_options: visibleOptions.nullable().optional(),
      options: spanOptions(OPTION_COUNT_LIMITS.span.min, SPAN_MAX_OPTIONS).optional(),
      allow_overlapping: z.boolean().optional(),
    }),
  }),
);
export type QuestionSettingsUpdate = z.infer<typeof QuestionSettingsUpdateSchema>;

/**
 * Applies a validated settings update to stored settings. Returns the new settings or a flat-422 message
 * (contract 3.6 update rules: same type, same option values, visible_options bound, allow_overlapping not disabled).
 */
export function applyQuestionSettingsUpdate(
  stored: QuestionSettings,
  update: QuestionSettingsUpdate,
): { settings: QuestionSettings } | { error: string } {
  if (stored.type !== update.type) return { error: `question type cannot be changed. expected '${stored.type}' but got '${update.type}'` };
  if (update.type === "text" || update.type === "rating" || update.type === "ranking") {
    const next = { ...stored } as Record<string, unknown>;
    if (update.type === "text" && update.use_markdown !== undefined) next.use_markdown = update.use_markdown;
    return { settings: next as QuestionSettings };
  }
  const current = stored as LabelSelectionQuestionSettings | MultiLabelSelectionQuestionSettings | SpanQuestionSettings;
  if (update.options !== undefined) {
    if (update.options.length !== current.options.length) {
      return { error: `the number of options cannot be modified. expected ${current.options.length} but got ${update.options.length}` };
    }
    const before = current.options.map((o) => o.value).sort();
    const after = update.options.map((o) => o.value).sort();
    const unexpected = after.filter((value, i) => value !== before[i]);
    if (unexpected.length > 0) {
      return {
        error: `the option values cannot be modified. found unexpected option values: [${unexpected.map((v) => `'${v}'`).join(", ")}]`,
      };
    }
  }
  if (visibleOptionsViolation(update.visible_options, current.options.length)?.kind === "visibleOptions.overOptions") {
    return { error: visibleOptionsMessage(current.options.length) };
  }
  if (update.type === "span" && current.type === "span" && current.allow_overlapping && update.allow_overlapping === false) {
    return { error: "'allow_overlapping' can't be disabled because responses may become inconsistent" };
  }
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(update)) if (value !== undefined && key !== "type") next[key] = value;
  return { settings: next as QuestionSettings };
}
