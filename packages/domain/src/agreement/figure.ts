/** One agreement figure and what it is computed on: null when undefined for the data (too few values, one value only). */
export interface AgreementFigure {
  value: number | null;
  /** Records (units) the figure uses. */
  records: number;
  /** Responses (values) the figure uses. */
  responses: number;
}

export const figure = (value: number | null, records: number, responses: number): AgreementFigure => ({
  value: value === null || !Number.isFinite(value) ? null : value,
  records,
  responses,
});
