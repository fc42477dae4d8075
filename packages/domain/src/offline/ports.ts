import type { RecordResponse } from "../entities/answer.js";
import type { ResponsePayload } from "../ports/record-repository.js";
import type { FormDraft } from "./form-draft.js";
import type { OutboxEntry } from "./outbox.js";
import { RepositoryError, type ErrorCode } from "../errors/error-codes.js";

/** A failure the server asked to retry later (503 or 429 with `Retry-After`): `retryAfterMs` is its delay. */
export class RetryLaterError extends RepositoryError {
  constructor(
    code: ErrorCode,
    status: number | undefined,
    readonly retryAfterMs: number,
    options?: { cause?: unknown },
  ) {
    super(code, status, options);
    this.name = "RetryLaterError";
  }
}

/** The outbox of each user on this device (IndexedDB in the browser). */
export interface OutboxStore {
  /** The user's entries, oldest first. */
  list(userId: string): Promise<OutboxEntry[]>;
  /**
   * Replaces the user's entries with what `change` makes of them, atomically (one read-write transaction:
   * tabs of the same browser never interleave). Returns the new entries, oldest first.
   */
  change(userId: string, change: (entries: OutboxEntry[]) => OutboxEntry[]): Promise<OutboxEntry[]>;
  /** Removes every entry of the user. */
  clear(userId: string): Promise<void>;
}

/** The forms kept at every change, one per user and record. */
export interface FormDraftStore {
  get(userId: string, recordId: string): Promise<FormDraft | null>;
  /**
   * Replaces the record's draft with what `change` makes of it (null: none), atomically (one read-write
   * transaction). Returning the draft given writes nothing.
   */
  change(userId: string, recordId: string, change: (draft: FormDraft | null) => FormDraft | null): Promise<void>;
  /** The user's drafts (e.g. to ask before sign-out). */
  list(userId: string): Promise<FormDraft[]>;
  clear(userId: string): Promise<void>;
}

/**
 * The server side of sending queued answers. Failures throw `RepositoryError` with the HTTP status
 * (none for a network error), `RetryLaterError` when the server said when to come back (`Retry-After`).
 */
export interface AnswerSyncRepository {
  /** POST /v1/records/{id}/responses (409 when the user already has one). */
  create(recordId: string, payload: ResponsePayload): Promise<RecordResponse>;
  /** PUT /v1/responses/{id} with `If-Match: "<updatedAt>"` (412 when it changed since, 404 when deleted). */
  update(responseId: string, payload: ResponsePayload, basedOn: string): Promise<RecordResponse>;
  /** The user's current response to the record (GET /v1/records/{id}), null when none. */
  current(recordId: string, userId: string): Promise<RecordResponse | null>;
}

export const OFFLINE_TOKENS = {
  OutboxStore: Symbol.for("tessera.OutboxStore"),
  FormDraftStore: Symbol.for("tessera.FormDraftStore"),
  AnswerSyncRepository: Symbol.for("tessera.AnswerSyncRepository"),
} as const;
