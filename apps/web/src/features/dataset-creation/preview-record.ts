import {
  DatasetRecord,
  PREVIEW_SUGGESTION_AGENT,
  PREVIEW_SUGGESTION_SCORES,
  type FieldProps,
  type QuestionProps,
  type SuggestionProps,
} from "@tessera/domain";

/**
 * A record for the live preview: the given field values with the questions to answer. A multi-label
 * question with more than 3 options gets a fake system suggestion of its first two options
 * (scores 0.5 and 0.7, spec section 9) unless `suggestions` (e.g. from a mapped Hub column) already has one
 * for it. Pending, so the questions are prefilled from the suggestions.
 */
export function previewRecord(
  questions: QuestionProps[],
  fields: FieldProps[],
  values: { [name: string]: unknown },
  given: SuggestionProps[] = [],
): DatasetRecord {
  const suggestions: SuggestionProps[] = given.filter((s) => questions.some((q) => q.id === s.questionId));
  for (const q of questions) {
    const options = q.settings.options ?? [];
    if (q.settings.type === "multi_label_selection" && options.length > 3 && !suggestions.some((s) => s.questionId === q.id)) {
      suggestions.push({
        id: `preview-suggestion-${q.name}`,
        questionId: q.id,
        questionType: q.settings.type,
        value: options.slice(0, 2).map((o) => o.value) as SuggestionProps["value"],
        score: [...PREVIEW_SUGGESTION_SCORES],
        agent: PREVIEW_SUGGESTION_AGENT,
      });
    }
  }
  const record = new DatasetRecord(
    {
      id: "preview",
      datasetId: "preview",
      fields: values,
      metadata: null,
      response: null,
      suggestions,
      insertedAt: "",
      updatedAt: "",
      queryScore: null,
      taskStatus: "pending",
    },
    questions,
    fields,
    1,
  );
  for (const q of record.questions) q.fillFromSuggestion();
  return record;
}
