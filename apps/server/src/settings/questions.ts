import { z } from "zod";
import { descriptionSchema, duplicates, pySet } from "./common.js";

/**
 * Question settings (contract 3.6). The create schemas fill the defaults; their output is exactly the
 * stored/returned wire shape kept in `questions.settings` (span adds the read-only
 * `allow_character_annotation: true`). The records engineer validates response and suggestion values
 * against the `QuestionSettings` union exported here.
 */
export const QUESTION_TYPES = ["text", "rating", "label_selection", "multi_label_selection", "ranking", "span"] as const;
export type QuestionType = (typeof QUESTION_TYPES)[number];

export const LABEL_SELECTION_MAX_OPTIONS = 500;
export const RANKING_MAX_OPTIONS = 50;
export const SPAN_MAX_OPTIONS = 500;
export const MIN_VISIBLE_OPTIONS = 3;

export const OptionSchema = z.object({
  value: z.string().min(1).max(200),
  text: z.string().min(1).max(500),
  description: descriptionSchema.nullable().default(null),
});
export type QuestionOption = z.infer<typeof OptionSchema>;

/** Span options may carry the colour the UI shows (spec section 3: HSL; generated from the label when absent). */
export const HSL_COLOR = /^hsla?\(\s*\d{1,3}(\.\d+)?(deg)?\s*,?\s*\d{1,3}(\.\d+)?%\s*,?\s*\d{1,3}(\.\d+)?%\s*(,\s*(0|1|0?\.\d+)\s*)?\)$/i;
export const SpanOptionSchema = OptionSchema.extend({
  color: z.string().max(64).regex(HSL_COLOR, { message: "The value color must be HSL for now." }).optional(),
});

export const RatingOptionSchema = z.object({ value: z.number().int().min(0).max(10) });
export type RatingOption = z.infer<typeof RatingOptionSchema>;

const uniqueValues = (options: readonly { value: string | number }[], ctx: z.RefinementCtx) => {
  const dup = duplicates(options.map((o) => o.value));
  if (dup.length > 0) ctx.addIssue({ code: "custom", message: `Option values must be unique, found duplicates: ${pySet(dup)}`, path: [] });
};

const options = (min: number, max: number) => z.array(OptionSchema).min(min).max(max).superRefine(uniqueValues);
const spanOptions = (min: number, max: number) => z.array(SpanOptionSchema).min(min).max(max).superRefine(uniqueValues);
const visibleOptions = z.number().int().min(MIN_VISIBLE_OPTIONS, { message: `Input should be greater than or equal to ${MIN_VISIBLE_OPTIONS}` });

export const visibleOptionsMessage = (count: number) =>
  `the value for 'visible_options' must be less or equal to the number of items in 'options' (${count})`;

const checkVisible = (s: { options: readonly unknown[]; visible_options: number | null }, ctx: z.RefinementCtx) => {
  if (s.visible_options !== null && s.visible_options > s.options.length) {
    ctx.addIssue({ code: "custom", message: visibleOptionsMessage(s.options.length), path: ["visible_options"] });
  }
};

export const TextQuestionSettingsSchema = z.object({ type: z.literal("text"), use_markdown: z.boolean().default(false) });
export const RatingQuestionSettingsSchema = z.object({
  type: z.literal("rating"),
  options: z.array(RatingOptionSchema).min(2).max(11).superRefine(uniqueValues),
});
export const LabelSelectionQuestionSettingsSchema = z.object({
  type: z.literal("label_selection"),
  options: options(2, LABEL_SELECTION_MAX_OPTIONS),
  visible_options: visibleOptions.nullable().default(null),
}).superRefine(checkVisible);
export const MultiLabelSelectionQuestionSettingsSchema = z.object({
  type: z.literal("multi_label_selection"),
  options: options(2, LABEL_SELECTION_MAX_OPTIONS),
  visible_options: visibleOptions.nullable().default(null),
  options_order: z.enum(["natural", "suggestion"]).default("natural"),
}).superRefine(checkVisible);
export const RankingQuestionSettingsSchema = z.object({ type: z.literal("ranking"), options: options(2, RANKING_MAX_OPTIONS) });
export const SpanQuestionSettingsSchema = z.object({
  type: z.literal("span"),
  field: z.string().min(1).max(200),
  options: spanOptions(1, SPAN_MAX_OPTIONS),
  visible_options: visibleOptions.nullable().default(null),
  allow_overlapping: z.boolean().default(false),
}).superRefine(checkVisible).transform((s) => ({ ...s, allow_character_annotation: true as const }));

export const QuestionSettingsCreateSchema = z.discriminatedUnion("type", [
  TextQuestionSettingsSchema, RatingQuestionSettingsSchema, LabelSelectionQuestionSettingsSchema,
  MultiLabelSelectionQuestionSettingsSchema, RankingQuestionSettingsSchema, SpanQuestionSettingsSchema,
]);

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
export const QuestionSettingsUpdateSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("text"), use_markdown: z.boolean().optional() }),
  z.object({ type: z.literal("rating") }),
  z.object({ type: z.literal("ranking") }),
  z.object({ type: z.literal("label_selection"), visible_options: visibleOptions.nullable().optional(), options: options(2, LABEL_SELECTION_MAX_OPTIONS).optional() }),
  z.object({
    type: z.literal("multi_label_selection"), visible_options: visibleOptions.nullable().optional(),
    options: options(2, LABEL_SELECTION_MAX_OPTIONS).optional(), options_order: z.enum(["natural", "suggestion"]).optional(),
  }),
  z.object({
    type: z.literal("span"), visible_options: visibleOptions.nullable().optional(),
    options: spanOptions(1, SPAN_MAX_OPTIONS).optional(), allow_overlapping: z.boolean().optional(),
  }),
]);
export type QuestionSettingsUpdate = z.infer<typeof QuestionSettingsUpdateSchema>;

/**
 * Applies a validated settings update to stored settings. Returns the new settings or a flat-422 message
 * (contract 3.6 update rules: same type, same option values, visible_options bound, allow_overlapping not disabled).
 */
export function applyQuestionSettingsUpdate(stored: QuestionSettings, update: QuestionSettingsUpdate): { settings: QuestionSettings } | { error: string } {
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
      return { error: `the option values cannot be modified. found unexpected option values: [${unexpected.map((v) => `'${v}'`).join(", ")}]` };
    }
  }
  if (update.visible_options !== undefined && update.visible_options !== null && update.visible_options > current.options.length) {
    return { error: visibleOptionsMessage(current.options.length) };
  }
  if (update.type === "span" && current.type === "span" && current.allow_overlapping && update.allow_overlapping === false) {
    return { error: "'allow_overlapping' can't be disabled because responses may become inconsistent" };
  }
  const next: Record<string, unknown> = { ...current };
  for (const [key, value] of Object.entries(update)) if (value !== undefined && key !== "type") next[key] = value;
  return { settings: next as QuestionSettings };
}
