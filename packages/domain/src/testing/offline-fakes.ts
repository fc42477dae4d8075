import type { RecordResponse } from "../entities/answer.js";
import { RepositoryError, ErrorCode } from "../errors/error-codes.js";
import { RetryLaterError, type AnswerSyncRepository } from "../offline/ports.js";
import type { ResponsePayload } from "../ports/record-repository.js";

export { MemoryDrafts, MemoryOutbox } from "../offline/memory-stores.js";

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
