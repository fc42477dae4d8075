import type { AnswerValues, RecordResponse, ResponseStatus } from "../entities/answer.js";

/**
 * The outbox: answers (submit, draft, discard) kept on this device, in the order they were given, until the
 * server has them. These are the pure rules; the web app persists entries through `OutboxStore` and sends
 * them with `SendNextAnswerUseCase`.
 */

/** The server response an answer was given on: its id and `updated_at`. Null when the user had no response yet. */
export interface ResponseBase {
  responseId: string;
  updatedAt: string;
}

/**
 * waiting: to be sent (again); conflict: the response changed on the server meanwhile, the annotator chooses;
 * rejected: the server refused it for good (e.g. the question was removed), kept so the answer is not lost.
 */
export type OutboxState = "waiting" | "conflict" | "rejected";

/** What the user did: a response for a record. */
export interface AnswerInput {
  userId: string;
  datasetId: string;
  recordId: string;
  status: ResponseStatus;
  values: AnswerValues;
  base: ResponseBase | null;
  queuedAt: string;
}

export interface OutboxEntry extends AnswerInput {
  /** Position in the user's queue (ascending = order given); never reused for a later answer. */
  seq: number;
  /** Failed attempts so far (network, 5xx); drives the back-off. */
  attempts: number;
  state: OutboxState;
  /** Set while one tab sends it; an entry found sending when the send lock is taken was cut off (crash, closed tab). */
  sending: boolean;
  /** With state 'conflict': the response now on the server (null when it was deleted there). */
  server: RecordResponse | null;
  /** With state 'rejected': why (HTTP status). */
  error: number | null;
}

export const baseOf = (response: RecordResponse | null): ResponseBase | null =>
  response ? { responseId: response.id, updatedAt: response.updatedAt } : null;

const sameBase = (a: ResponseBase | null, b: ResponseBase | null): boolean =>
  a === null || b === null ? a === b : a.responseId === b.responseId && a.updatedAt === b.updatedAt;

/** JSON with object keys in order, so that two answers compare by content. */
const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical);
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
};

/** Whether the server's response already says what the entry says (status and values): then sending it is done. */
export function sameAnswer(entry: Pick<OutboxEntry, "status" | "values">, response: RecordResponse | null): boolean {
  return (
    response !== null &&
    response.status === entry.status &&
    JSON.stringify(canonical(response.values ?? {})) === JSON.stringify(canonical(entry.values))
  );
}

/**
 * Adds an answer at the end of the queue. An earlier answer for the same record that nobody is sending yet (or
 * that the server refused) is replaced: only the last word on a record is sent, on the base of the replaced one,
 * since that is what the server still has. An answer in conflict stays until the annotator chooses.
 */
export function enqueueAnswer(entries: readonly OutboxEntry[], input: AnswerInput): OutboxEntry[] {
  const replaced = entries.find((e) => e.recordId === input.recordId && e.state !== "conflict" && !e.sending);
  const kept = entries.filter((e) => e !== replaced);
  // numbers are not reused once an entry has left the queue: at least the time given, in microseconds
  const seq = Math.max(entries.reduce((max, e) => Math.max(max, e.seq), 0) + 1, Date.parse(input.queuedAt) * 1000 || 0);
  const entry: OutboxEntry = {
    ...input,
    base: replaced ? replaced.base : input.base,
    seq,
    attempts: 0,
    state: "waiting",
    sending: false,
    server: null,
    error: null,
  };
  return [...kept, entry];
}

/**
 * The next entry to send: the oldest waiting one whose record has no older entry still unresolved (a record's
 * answers go out one after the other; other records do not wait for a conflict to be resolved).
 */
export function nextToSend(entries: readonly OutboxEntry[]): OutboxEntry | null {
  const blocked = new Set<string>();
  for (const e of [...entries].sort((a, b) => a.seq - b.seq)) {
    if (e.state === "waiting" && !e.sending && !blocked.has(e.recordId)) return e;
    blocked.add(e.recordId);
  }
  return null;
}

const update = (entries: readonly OutboxEntry[], seq: number, change: (e: OutboxEntry) => OutboxEntry): OutboxEntry[] =>
  entries.map((e) => (e.seq === seq ? change(e) : e));

export const markSending = (entries: readonly OutboxEntry[], seq: number): OutboxEntry[] =>
  update(entries, seq, (e) => ({ ...e, sending: true }));

/** When the send lock is taken: entries left 'sending' by a tab that died are waiting again. */
export const releaseAbandoned = (entries: readonly OutboxEntry[]): OutboxEntry[] =>
  entries.map((e) => (e.sending ? { ...e, sending: false } : e));

/**
 * The server has the entry's answer (`response`): the entry leaves the queue, and later answers for the same
 * record that were given on the same base now build on the new response.
 */
export function applySent(entries: readonly OutboxEntry[], sent: OutboxEntry, response: RecordResponse): OutboxEntry[] {
  const next = baseOf(response);
  return entries
    .filter((e) => e.seq !== sent.seq)
    .map((e) => (e.recordId === sent.recordId && sameBase(e.base, sent.base) ? { ...e, base: next } : e));
}

/** Network error, timeout or 5xx: waits for the next attempt. */
export const applyUnreachable = (entries: readonly OutboxEntry[], seq: number): OutboxEntry[] =>
  update(entries, seq, (e) => ({ ...e, sending: false, attempts: e.attempts + 1 }));

/** The response changed on the server meanwhile: the entry waits for the annotator's choice. */
export const applyConflict = (entries: readonly OutboxEntry[], seq: number, server: RecordResponse | null): OutboxEntry[] =>
  update(entries, seq, (e) => ({ ...e, sending: false, state: "conflict", server }));

/** Refused for good (4xx other than a conflict): kept, visible, until the annotator retries or drops it. */
export const applyRejected = (entries: readonly OutboxEntry[], seq: number, status: number): OutboxEntry[] =>
  update(entries, seq, (e) => ({ ...e, sending: false, state: "rejected", error: status }));

export type ConflictChoice = "mine" | "theirs";

/**
 * The annotator's choice on a conflict: 'mine' sends their answer over the server's (now based on it),
 * 'theirs' drops their answer. A rejected entry is retried with 'mine' and dropped with 'theirs'.
 */
export function resolveEntry(entries: readonly OutboxEntry[], seq: number, choice: ConflictChoice): OutboxEntry[] {
  if (choice === "theirs") return entries.filter((e) => e.seq !== seq);
  return update(entries, seq, (e) => ({
    ...e,
    state: "waiting",
    attempts: 0,
    error: null,
    server: null,
    base: e.state === "conflict" ? baseOf(e.server) : e.base,
  }));
}

/** How the server answered one send, as the rules need it. */
export type SendFailure = "unreachable" | "changed" | "rejected";

/**
 * Classifies a failed send by its HTTP status: none (network), 408, 429 and 5xx are worth retrying;
 * 409 (create: a response exists) and 412 (update: it changed) and 404 (it was deleted) mean the server's
 * response must be compared; any other status is a refusal.
 */
export function classifyFailure(status: number | undefined): SendFailure {
  if (status === undefined || status === 408 || status === 429 || status === 401 || status >= 500) return "unreachable";
  if (status === 409 || status === 412 || status === 404) return "changed";
  return "rejected";
}

/** The shortest and longest wait a server's `Retry-After` may ask for: no hammering, and no outbox silenced for hours. */
export const RETRY_AFTER_BOUNDS = { min: 1000, max: 10 * 60_000 } as const;

/**
 * Back-off before the next attempt: 1 s, 2 s, 4 s ... up to 30 s, with up to 20 % jitter (`random` in [0, 1)).
 * When the server said when to come back (`retryAfterMs`, from `Retry-After`), that is the wait, within
 * `RETRY_AFTER_BOUNDS`.
 */
export function retryDelay(attempts: number, random = 0.5, retryAfterMs?: number): number {
  if (retryAfterMs !== undefined && Number.isFinite(retryAfterMs))
    return Math.min(RETRY_AFTER_BOUNDS.max, Math.max(RETRY_AFTER_BOUNDS.min, Math.round(retryAfterMs)));
  const base = Math.min(30_000, 1000 * 2 ** Math.max(0, attempts - 1));
  return Math.round(base * (1 + 0.2 * random));
}

/** Entries the annotator still has to act on or that wait: what counts as 'unsent'. */
export const unsentCount = (entries: readonly OutboxEntry[]): number => entries.length;
