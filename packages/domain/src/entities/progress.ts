/** Team progress of a dataset; percentages carry 2 decimals (spec section 3). */
export class Progress {
  constructor(
    readonly total: number,
    readonly completed: number,
    readonly pending: number,
  ) {}

  get percentCompleted(): number {
    return Progress.percent(this.completed, this.total);
  }
  get percentPending(): number {
    return Progress.percent(this.pending, this.total);
  }

  static percent(part: number, total: number): number {
    if (total <= 0) return 0;
    return Math.round((part / total) * 100 * 100) / 100;
  }
}
