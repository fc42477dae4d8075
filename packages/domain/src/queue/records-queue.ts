import type { DatasetRecord } from "../entities/record.js";
import type { RecordCriteria } from "../criteria/record-criteria.js";

/** A window on the server's result set: 1-based `from`, `many` records; fetched records get queue pages from `queuePage`. */
export interface FetchWindow { from: number; many: number; queuePage: number }

/**
 * The records queue (spec section 4): fetched pages, kept sorted by queue page and upserted by
 * id, plus the buffering decisions.
 */
export class RecordsQueue {
  private items: DatasetRecord[] = [];
  /** Only one buffer load runs at a time. */
  isBuffering = false;

  constructor(records: DatasetRecord[] = [], public total = 0, public reference: DatasetRecord | null = null) {
    this.append(records, total);
  }

  get records(): readonly DatasetRecord[] { return this.items; }
  get isEmpty(): boolean { return this.items.length === 0; }
  get firstRecord(): DatasetRecord | undefined { return this.items[0]; }
  get lastRecord(): DatasetRecord | undefined { return this.items[this.items.length - 1]; }

  /** Upserts by id and keeps the queue sorted by page. */
  append(records: DatasetRecord[], total: number = this.total): void {
    const byId = new Map(this.items.map((r) => [r.id, r]));
    for (const r of records) byId.set(r.id, r);
    this.items = [...byId.values()].sort((a, b) => a.page - b.page);
    this.total = total;
  }

  recordAt(page: number): DatasetRecord | undefined { return this.items.find((r) => r.page === page); }

  /** The records shown for a position (one in focus, a page in bulk). */
  recordsOn(criteria: RecordCriteria): DatasetRecord[] {
    const { page, shown } = criteria.page;
    return this.items.filter((r) => r.page >= page && r.page < page + shown);
  }

  /** Whether every record shown at this position is already in the queue. */
  hasRecordsFor(criteria: RecordCriteria): boolean {
    const { page, shown } = criteria.page;
    const expected = Math.max(0, Math.min(shown, this.total - page + 1));
    return this.recordsOn(criteria).length >= Math.max(1, expected);
  }

  /** Records after the ones shown at this position. */
  recordsAhead(criteria: RecordCriteria): number {
    const last = criteria.page.page + criteria.page.shown - 1;
    return this.items.filter((r) => r.page > last).length;
  }

  /** Server records that left the result set because their status no longer matches the filter. */
  private answeredBefore(queuePage: number, criteria: RecordCriteria): number {
    return this.items.filter((r) => r.page < queuePage && r.status !== criteria.status).length;
  }

  /**
   * A buffer is prefetched when the records ahead are at or below the buffer size, never when
   * filtering by similarity or paging backward, never while another buffer load runs, and not
   * past the end of the result set.
   */
  shouldBuffer(criteria: RecordCriteria): boolean {
    if (criteria.isFilteringBySimilarity || criteria.page.isBackward || this.isBuffering) return false;
    const last = this.lastRecord;
    if (!last) return false;
    if (last.page - this.answeredBefore(last.page + 1, criteria) >= this.total) return false;
    return this.recordsAhead(criteria) <= criteria.page.buffer;
  }

  /** The window of the next buffer: after the last record, corrected for answered records. */
  bufferWindow(criteria: RecordCriteria): FetchWindow {
    const queuePage = (this.lastRecord?.page ?? 0) + 1;
    return { from: queuePage - this.answeredBefore(queuePage, criteria), many: criteria.page.fetchSize, queuePage };
  }

  /** The window to load a position that is not in the queue. */
  windowFor(criteria: RecordCriteria): FetchWindow {
    if (criteria.similarity) return { from: 1, many: criteria.similarity.limit, queuePage: 1 };
    const { page, mode, fetchSize, isBackward } = criteria.page;
    if (isBackward) return { from: page - this.answeredBefore(page, criteria), many: mode === "focus" ? 1 : fetchSize, queuePage: page };
    return { from: page - this.answeredBefore(page, criteria), many: fetchSize, queuePage: page };
  }
}
