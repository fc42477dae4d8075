import type { RecordResponse } from "../entities/answer.js";
import { RepositoryError, ErrorCode } from "../errors/error-codes.js";
import type { FormDraft } from "../offline/form-draft.js";
import type { OutboxEntry } from "../offline/outbox.js";
import { RetryLaterError, type AnswerSyncRepository, type FormDraftStore, type OutboxStore } from "../offline/ports.js";
import type { ResponsePayload } from "../ports/record-repository.js";

/** In-memory outbox (the rules' tests; the IndexedDB adapter has its own). */
export class MemoryOutbox implements OutboxStore {
  entries: OutboxEntry[] = [];
  private mine(userId: string) {
    return this.entries.filter((e) => e.userId === userId).sort((a, b) => a.seq - b.seq);
  }
  async list(userId: string) {
    return this.mine(userId);
  }
  /** Read, change and write without a pause, like one IndexedDB read-write transaction. */
  async change(userId: string, change: (entries: OutboxEntry[]) => OutboxEntry[]) {
    const next = change(this.mine(userId));
    this.entries = [...this.entries.filter((e) => e.userId !== userId), ...next];
    return this.mine(userId);
  }
  async clear(userId: string) {
    this.entries = this.entries.filter((e) => e.userId !== userId);
  }
}

export class MemoryDrafts implements FormDraftStore {
  readonly drafts = new Map<string, FormDraft>();
  async get(userId: string, recordId: string) {
    return this.drafts.get(`${userId}/${recordId}`) ?? null;
  }
  async change(userId: string, recordId: string, change: (draft: FormDraft | null) => FormDraft | null) {
    const key = `${userId}/${recordId}`;
    const next = change(this.drafts.get(key) ?? null);
    if (next) this.drafts.set(key, next);
    else this.drafts.delete(key);
  }
  async list(userId: string) {
    return [...this.drafts.values()].filter((d) => d.userId === userId);
  }
  async clear(userId: string) {
    for (const d of await this.list(userId)) this.drafts.delete(`${userId}/${d.recordId}`);
  }
}

/**
 * A server holding one response per user and record, with the real endpoints' rules: create refuses a second
 * response (409), update needs the version it was based on (412) and an existing response (404).
 * `failNext` makes the next calls fail with a status (undefined: network error).
 */
export class FakeAnswerServer implements AnswerSyncRepository {
  readonly responses = new Map<string, RecordResponse & { userId: string }>();
  readonly calls: string[] = [];
  /** The next calls' failures: an HTTP status, undefined (network error), or a status with a `Retry-After` wait. */
  failures: Array<number | undefined | { status: number; retryAfterMs: number }> = [];
  private n = 0;
  constructor(readonly userId = "u1") {}

  private fail(): void {
    if (this.failures.length === 0) return;
    const failure = this.failures.shift();
    if (typeof failure === "object")
      throw new RetryLaterError(ErrorCode.ERROR_UPDATING_RECORD_RESPONSE, failure.status, failure.retryAfterMs);
    throw new RepositoryError(ErrorCode.ERROR_UPDATING_RECORD_RESPONSE, failure);
  }
  private stamp(): string {
    return `2026-01-01T00:00:${String(++this.n).padStart(2, "0")}`;
  }

  /** Another writer (tab, reviewer, SDK) puts a response. */
  write(recordId: string, payload: ResponsePayload): RecordResponse {
    return this.strip(this.put(recordId, payload));
  }
  private put(recordId: string, payload: ResponsePayload): RecordResponse & { userId: string } {
    const existing = [...this.responses.values()].find((r) => r.recordId === recordId);
    const response = {
      id: existing?.id ?? `resp-${recordId}`,
      recordId,
      status: payload.status,
      values: payload.values,
      updatedAt: this.stamp(),
      userId: this.userId,
    };
    this.responses.set(response.id, response);
    return response;
  }
  async create(recordId: string, payload: ResponsePayload) {
    this.calls.push(`create ${recordId}`);
    this.fail();
    if ([...this.responses.values()].some((r) => r.recordId === recordId))
      throw new RepositoryError(ErrorCode.ERROR_CREATING_RECORD_RESPONSE, 409);
    return this.write(recordId, payload);
  }
  async update(responseId: string, payload: ResponsePayload, basedOn: string) {
    this.calls.push(`update ${responseId}`);
    this.fail();
    const existing = this.responses.get(responseId);
    if (!existing) throw new RepositoryError(ErrorCode.ERROR_UPDATING_RECORD_RESPONSE, 404);
    if (existing.updatedAt !== basedOn) throw new RepositoryError(ErrorCode.ERROR_UPDATING_RECORD_RESPONSE, 412);
    return this.write(existing.recordId, payload);
  }
  async current(recordId: string) {
    this.calls.push(`current ${recordId}`);
    const r = [...this.responses.values()].find((x) => x.recordId === recordId);
    return r ? this.strip(r) : null;
  }
  private strip(r: RecordResponse & { userId: string }): RecordResponse {
    return { id: r.id, recordId: r.recordId, status: r.status, values: r.values, updatedAt: r.updatedAt };
  }
}
