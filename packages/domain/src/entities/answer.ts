/** Answer value shapes (spec section 3). */
export interface SpanItem {
  start: number;
  end: number;
  label: string;
}
export interface RankingItem {
  value: string;
  rank: number | null;
}
export type OptionValue = string | number;

/**
 * text: a string; label_selection and rating: the chosen value; multi_label_selection: a list of
 * values; span: a list of {start, end, label}; ranking: a list of {value, rank}.
 */
export type AnswerValue = string | number | OptionValue[] | SpanItem[] | RankingItem[];

/** Values by question name (the wire's `values` without the `{value}` wrapper). */
export type AnswerValues = { [questionName: string]: AnswerValue };

export type ResponseStatus = "draft" | "submitted" | "discarded";

/** A user's response to a record (spec: Answer / Response). */
export interface RecordResponse {
  id: string;
  status: ResponseStatus;
  values: AnswerValues;
  updatedAt: string;
  recordId: string;
}
