import type { RecordResponse } from "../../entities/answer.js";
import { RepositoryError } from "../../errors/error-codes.js";
import { RetryLaterError, type AnswerSyncRepository, type FormDraftStore, type OutboxStore } from "../../offline/ports.js";
import {
  applyConflict,
  applyRejected,
  applySent,
  applyUnreachable,
  baseOf,
  classifyFailure,
  markSending,
  nextToSend,
  releaseAbandoned,
  sameAnswer,
  type OutboxEntry,
} from "../../offline/outbox.js";

/** What one send did, with the user's entries after it (`entries`, oldest first). */
export type SendResult = { entries: OutboxEntry[] } & (
  | { kind: "idle" }
  | { kind: "sent"; entry: OutboxEntry; response: RecordResponse }
  | { kind: "unreachable"; entry: OutboxEntry; attempts: number; retryAfterMs?: number }
  | { kind: "conflict"; entry: OutboxEntry; server: RecordResponse | null }
  | { kind: "rejected"; entry: OutboxEntry; status: number }
);

const statusOf = (error: unknown): number | undefined => (error instanceof RepositoryError ? error.status : undefined);

/**
 * Sends the next queued answer of the user (one call; the caller holds the send lock and loops).
 * Without a base it creates the response, with one it updates it on condition that it is still that version.
 * A 409/412/404 fetches the server's response: when it already says the same (another tab sent it, or an
 * earlier attempt landed before a crash) the answer counts as sent, so a response is written at most once;
 * otherwise the entry waits for the annotator's choice. Network errors and 5xx leave it waiting.
 */
export class SendNextAnswerUseCase {
  constructor(
    private readonly outbox: OutboxStore,
    private readonly drafts: FormDraftStore,
    private readonly sync: AnswerSyncRepository,
  ) {}

  /** Called once the caller holds the send lock: an entry still marked as being sent was cut off (crash, closed tab) and is sent again. */
  async recover(userId: string): Promise<void> {
    await this.outbox.change(userId, releaseAbandoned);
  }

  async execute(userId: string): Promise<SendResult> {
    // picked and marked in one transaction
    let picked: OutboxEntry | null = null;
    const entries = await this.outbox.change(userId, (current) => {
      picked = nextToSend(current);
      return picked ? markSending(current, picked.seq) : current;
    });
    const entry = picked as OutboxEntry | null;
    if (!entry) return { kind: "idle", entries };
    const payload = { status: entry.status, values: entry.values };
    try {
      const response = entry.base
        ? await this.sync.update(entry.base.responseId, payload, entry.base.updatedAt)
        : await this.sync.create(entry.recordId, payload);
      return await this.sent(entry, response);
    } catch (error) {
      const status = statusOf(error);
      const failure = classifyFailure(status);
      if (failure === "unreachable") return this.unreachable(entry, error instanceof RetryLaterError ? error.retryAfterMs : undefined);
      if (failure === "rejected") {
        const after = await this.outbox.change(userId, (current) => applyRejected(current, entry.seq, status ?? 0));
        return { kind: "rejected", entry, status: status ?? 0, entries: after };
      }
      let server: RecordResponse | null;
      try {
        server = await this.sync.current(entry.recordId, userId);
      } catch {
        return this.unreachable(entry);
      }
      if (sameAnswer(entry, server)) return this.sent(entry, server!);
      const after = await this.outbox.change(userId, (current) => applyConflict(current, entry.seq, server));
      return { kind: "conflict", entry, server, entries: after };
    }
  }

  private async unreachable(entry: OutboxEntry, retryAfterMs?: number): Promise<SendResult> {
    const entries = await this.outbox.change(entry.userId, (current) => applyUnreachable(current, entry.seq));
    return { kind: "unreachable", entry, attempts: entry.attempts + 1, entries, ...(retryAfterMs !== undefined ? { retryAfterMs } : {}) };
  }

  /** Out of the queue; the record's kept form is forgotten when nothing was typed after it was queued, else it builds on the new response. */
  private async sent(entry: OutboxEntry, response: RecordResponse): Promise<SendResult> {
    const entries = await this.outbox.change(entry.userId, (current) => applySent(current, entry, response));
    await this.drafts.change(entry.userId, entry.recordId, (draft) => {
      if (!draft || draft.savedAt <= entry.queuedAt) return null;
      return { ...draft, base: baseOf(response) };
    });
    return { kind: "sent", entry, response, entries };
  }
}
