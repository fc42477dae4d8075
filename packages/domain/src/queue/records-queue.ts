import type { DatasetRecord, RecordStatus } from "../entities/record.js";
import type { RecordCriteria } from "../criteria/record-criteria.js";
import type { QueueReservations } from "../use-cases/reservations/ports.js";

/**
 * A window on the server's result set: 1-based `from`, `many` records; fetched records get queue
 * pages from `queuePage`. With `skipQueued`, fetched records already in the queue are left out
 * (the window starts early by the number of responses still on their way, see `saving`).
 */
export interface FetchWindow {
  from: number;
  many: number;
  queuePage: number;
  skipQueued?: boolean;
}

/** Fetch windows kept on each side of the shown records (see `retain`). */
export const QUEUE_WINDOWS_KEPT = 2;

/**
 * The records queue (spec section 4): fetched pages, kept sorted by queue page and upserted by
 * id, plus the buffering decisions.
 *
 * The queue keeps a bounded window around the shown records (`retain`): records further behind
 * or ahead are dropped and fetched again when the user pages back to them. What the offset
 * correction needs of a dropped record (its page and status) is kept as two numbers per record.
 */
export class RecordsQueue {
  private items: DatasetRecord[] = [];
  /** Pages of dropped records, by the status they had when dropped (sorted ascending). */
  private readonly dropped = new Map<RecordStatus, number[]>();
  /** Records whose response is on its way: the server may or may not count it yet. */
  private readonly unsettled = new Set<string>();
  /** Only one buffer load runs at a time. */
  isBuffering = false;
  /** `total` is a lower bound: more records match (a text search's total past the server's count bound). */
  totalIsLowerBound = false;
  /** What the last load of a reserving queue told (issue 29); null when the queue does not reserve. */
  reservations: QueueReservations | null = null;

  constructor(
    records: DatasetRecord[] = [],
    public total = 0,
    public reference: DatasetRecord | null = null,
  ) {
    this.append(records, total);
  }

  get records(): readonly DatasetRecord[] {
    return this.items;
  }
  get isEmpty(): boolean {
    return this.items.length === 0;
  }
  get firstRecord(): DatasetRecord | undefined {
    return this.items[0];
  }
  get lastRecord(): DatasetRecord | undefined {
    return this.items[this.items.length - 1];
  }

  /** Upserts by id and keeps the queue sorted by page. */
  append(records: DatasetRecord[], total: number = this.total, totalIsLowerBound = this.totalIsLowerBound): void {
    if (records.length > 0) {
      const byId = new Map(this.items.map((r) => [r.id, r]));
      for (const r of records) {
        byId.set(r.id, r);
        this.forgetDropped(r.page);
      }
      this.items = [...byId.values()].sort((a, b) => a.page - b.page);
    }
    this.total = total;
    this.totalIsLowerBound = totalIsLowerBound;
  }

  /**
   * A response of this record was sent and has not landed: until `settled`, the record is counted
   * as answered (it may already have left the result set) and the next buffer starts early by
   * one record, leaving out what the queue already holds, so that no record is skipped or shown
   * twice whichever the server handles first. The record is not dropped meanwhile.
   */
  saving(recordId: string): void {
    this.unsettled.add(recordId);
  }
  settled(recordId: string): void {
    this.unsettled.delete(recordId);
  }
  has(recordId: string): boolean {
    return this.items.some((r) => r.id === recordId);
  }

  recordAt(page: number): DatasetRecord | undefined {
    return this.items.find((r) => r.page === page);
  }

  /** The records shown for a position (one in focus, a page in bulk). */
  recordsOn(criteria: RecordCriteria): DatasetRecord[] {
    const { page, shown } = criteria.page;
    return this.items.filter((r) => r.page >= page && r.page < page + shown);
  }

  /** Whether every record shown at this position is already in the queue. */
  hasRecordsFor(criteria: RecordCriteria): boolean {
    const { page, shown } = criteria.page;
    const expected = this.totalIsLowerBound ? shown : Math.max(0, Math.min(shown, this.total - page + 1));
    return this.recordsOn(criteria).length >= Math.max(1, expected);
  }

  /** Records after the ones shown at this position. */
  recordsAhead(criteria: RecordCriteria): number {
    const last = criteria.page.page + criteria.page.shown - 1;
    return this.items.filter((r) => r.page > last).length;
  }

  /**
   * Drops the records more than `QUEUE_WINDOWS_KEPT` fetch windows behind the shown records, or
   * more than that plus the buffer ahead of them, so that the queue stays bounded however many
   * records the user goes through. Similarity results (one load of at most the similarity
   * limit) are kept whole.
   */
  retain(criteria: RecordCriteria): void {
    if (criteria.isFilteringBySimilarity) return;
    const { page, shown, fetchSize, buffer } = criteria.page;
    const span = QUEUE_WINDOWS_KEPT * fetchSize;
    const from = page - span;
    const to = page + shown - 1 + span + buffer;
    if (this.items.every((r) => r.page >= from && r.page <= to)) return;
    const kept: DatasetRecord[] = [];
    for (const r of this.items) {
      if ((r.page >= from && r.page <= to) || this.unsettled.has(r.id)) kept.push(r);
      else this.rememberDropped(r);
    }
    this.items = kept;
  }

  private rememberDropped(record: DatasetRecord): void {
    const pages = this.dropped.get(record.status) ?? [];
    let i = pages.length;
    while (i > 0 && pages[i - 1]! > record.page) i--;
    pages.splice(i, 0, record.page);
    this.dropped.set(record.status, pages);
  }

  private forgetDropped(page: number): void {
    for (const pages of this.dropped.values()) {
      const i = pages.indexOf(page);
      if (i >= 0) pages.splice(i, 1);
    }
  }

  /** Server records that left the result set because their status no longer matches the filter. */
  private answeredBefore(queuePage: number, criteria: RecordCriteria): number {
    let count = 0;
    for (const r of this.items) if (r.page < queuePage && (r.status !== criteria.status || this.unsettled.has(r.id))) count++;
    for (const [status, pages] of this.dropped) {
      if (status === criteria.status) continue;
      for (const p of pages) {
        if (p >= queuePage) break;
        count++;
      }
    }
    return count;
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
    if (!this.totalIsLowerBound && last.page - this.answeredBefore(last.page + 1, criteria) >= this.total) return false;
    return this.recordsAhead(criteria) <= criteria.page.buffer;
  }

  /** Records before this queue page whose response is on its way and whose status still matches the filter. */
  private uncertainBefore(queuePage: number, criteria: RecordCriteria): number {
    let count = 0;
    for (const r of this.items) if (r.page < queuePage && r.status === criteria.status && this.unsettled.has(r.id)) count++;
    return count;
  }

  /** The window of the next buffer: after the last record, corrected for answered records (and those being answered). */
  bufferWindow(criteria: RecordCriteria): FetchWindow {
    const queuePage = (this.lastRecord?.page ?? 0) + 1;
    const from = queuePage - this.answeredBefore(queuePage, criteria);
    const uncertain = this.uncertainBefore(queuePage, criteria);
    if (uncertain === 0) return { from, many: criteria.page.fetchSize, queuePage };
    return { from, many: criteria.page.fetchSize + uncertain, queuePage, skipQueued: true };
  }

  /** The window to load a position that is not in the queue. */
  windowFor(criteria: RecordCriteria): FetchWindow {
    if (criteria.similarity) return { from: 1, many: criteria.similarity.limit, queuePage: 1 };
    const { page, mode, fetchSize, isBackward } = criteria.page;
    if (isBackward) return { from: page - this.answeredBefore(page, criteria), many: mode === "focus" ? 1 : fetchSize, queuePage: page };
    return { from: page - this.answeredBefore(page, criteria), many: fetchSize, queuePage: page };
  }
}
