import type { RecordCriteria } from "../../criteria/record-criteria.js";
import { RecordsQueue, type FetchWindow } from "../../queue/records-queue.js";
import type { GetRecordsByCriteriaUseCase } from "./get-records-by-criteria.js";

/**
 * Loads the records to annotate into a queue and pages through it, prefetching a buffer in the
 * background (spec section 4, records queue).
 */
export class LoadRecordsUseCase {
  private buffering: Promise<void> = Promise.resolve();

  constructor(private readonly getRecords: GetRecordsByCriteriaUseCase) {}

  /** First load for a criteria. Falls back to the first page when the target page has no record. */
  async load(criteria: RecordCriteria): Promise<RecordsQueue> {
    let queue = new RecordsQueue();
    await this.fetchInto(queue, criteria, queue.windowFor(criteria));
    if (!queue.recordAt(criteria.page.page) && !criteria.page.isFirstPage) {
      criteria.page.goToFirst();
      queue = new RecordsQueue();
      await this.fetchInto(queue, criteria, queue.windowFor(criteria));
    }
    this.startBuffer(criteria, queue);
    return queue;
  }

  /**
   * Moves to the criteria's page; fetches it when it is not in the queue. Returns whether records
   * exist there. The queue keeps a bounded window around the page (records far behind are fetched
   * again when the user pages back to them).
   */
  async paginate(criteria: RecordCriteria, queue: RecordsQueue): Promise<boolean> {
    queue.retain(criteria);
    // the buffer on its way may hold the page: wait for it rather than load the same records twice
    if (!queue.hasRecordsFor(criteria) && queue.isBuffering && !criteria.page.isBackward) await this.buffering;
    if (!queue.hasRecordsFor(criteria)) await this.fetchInto(queue, criteria, queue.windowFor(criteria));
    const found = queue.recordsOn(criteria).length > 0;
    this.startBuffer(criteria, queue);
    return found;
  }

  /** Resolves when the current background buffer load (if any) has ended. */
  whenBuffered(): Promise<void> {
    return this.buffering;
  }

  private startBuffer(criteria: RecordCriteria, queue: RecordsQueue): void {
    if (!queue.shouldBuffer(criteria)) return;
    queue.isBuffering = true;
    this.buffering = this.fetchInto(queue, criteria, queue.bufferWindow(criteria))
      .catch(() => undefined) // errors while prefetching the buffer are ignored
      .finally(() => {
        queue.isBuffering = false;
      });
  }

  private async fetchInto(queue: RecordsQueue, criteria: RecordCriteria, window: FetchWindow): Promise<void> {
    const page = await this.getRecords.execute(criteria, window, queue);
    queue.append(page.records, page.total, page.totalIsLowerBound);
    if (page.reservations !== undefined) queue.reservations = page.reservations;
    if (page.reference) queue.reference = page.reference;
  }
}
