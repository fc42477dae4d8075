import type { RecordResponse } from "../../entities/answer.js";
import type { FormDraftStore, OutboxStore } from "../../offline/ports.js";
import { resolveEntry, type ConflictChoice, type OutboxEntry } from "../../offline/outbox.js";

/**
 * The annotator's choice on a conflicting (or refused) queued answer: 'mine' sends it again over the server's
 * version, 'theirs' drops it and the kept form of the record (the server's response stays). Returns the
 * server's response to show, when the choice was 'theirs'.
 */
export class ResolveQueuedAnswerUseCase {
  constructor(
    private readonly outbox: OutboxStore,
    private readonly drafts: FormDraftStore,
  ) {}

  async execute(entry: OutboxEntry, choice: ConflictChoice): Promise<RecordResponse | null> {
    await this.outbox.change(entry.userId, (entries) => resolveEntry(entries, entry.seq, choice));
    if (choice === "mine") return null;
    await this.drafts.change(entry.userId, entry.recordId, () => null);
    return entry.server;
  }
}
