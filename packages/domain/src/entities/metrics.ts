import { Progress } from "./progress.js";

/** The user's own counts on a dataset. Responded = submitted + discarded + draft; progress = responded / total. */
export class DatasetMetrics {
  constructor(
    readonly total: number,
    readonly submitted: number,
    readonly discarded: number,
    readonly draft: number,
    readonly pending: number,
  ) {}

  get responded(): number {
    return this.submitted + this.discarded + this.draft;
  }
  /** Progress as a percentage with 2 decimals. */
  get progress(): number {
    return Progress.percent(this.responded, this.total);
  }
  get hasMetrics(): boolean {
    return this.total > 0;
  }
  get percentSubmitted(): number {
    return Progress.percent(this.submitted, this.total);
  }
  get percentDiscarded(): number {
    return Progress.percent(this.discarded, this.total);
  }
  get percentDraft(): number {
    return Progress.percent(this.draft, this.total);
  }
  get percentPending(): number {
    return Progress.percent(this.pending, this.total);
  }
}
