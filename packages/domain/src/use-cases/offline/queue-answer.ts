import type { AnswerValues, ResponseStatus } from "../../entities/answer.js";
import type { DatasetRecord } from "../../entities/record.js";
import { ValidationError } from "../../errors/validation-error.js";
import { MESSAGES } from "../../messages.js";
import type { Clock } from "../../ports/more-ports.js";
import type { FormDraftStore, OutboxStore } from "../../offline/ports.js";
import { baseOf, enqueueAnswer, type OutboxEntry } from "../../offline/outbox.js";

/**
 * Submit, Save as draft or Discard: the answer is written to the user's outbox on this device first (so
 * nothing is lost whatever happens next) and sent from there. The base is the server version the form's work
 * started on (the kept form draft's), else the record's current response.
 */
export class QueueAnswerUseCase {
  constructor(
    private readonly outbox: OutboxStore,
    private readonly drafts: FormDraftStore,
    private readonly clock: Clock,
  ) {}

  /**
   * `values` replaces the record's own answers (bulk: the bulk form's answers). Returns the queued entry and the
   * position of the earlier answer of the record it replaced, if any.
   */
  async execute(
    userId: string,
    record: DatasetRecord,
    status: ResponseStatus,
    values?: AnswerValues,
  ): Promise<{ entry: OutboxEntry; replaced: number | null }> {
    if (status === "submitted" && !values && !record.questionsAreCompletedCorrectly) throw new ValidationError(MESSAGES.incompleteRecord);
    const draft = await this.drafts.get(userId, record.id);
    const input = {
      userId,
      datasetId: record.datasetId,
      recordId: record.id,
      status,
      values: values ?? record.valuesFor(status),
      base: draft ? draft.base : baseOf(record.answer),
      queuedAt: new Date(this.clock.now()).toISOString(),
    };
    let replaced: number | null = null;
    const entries = await this.outbox.change(userId, (current) => {
      const next = enqueueAnswer(current, input);
      replaced = current.find((e) => !next.some((n) => n.seq === e.seq))?.seq ?? null;
      return next;
    });
    return { entry: entries[entries.length - 1]!, replaced };
  }
}
