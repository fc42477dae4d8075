import { describe, expect, it } from "vitest";
import {
  applyConflict,
  applyRejected,
  applySent,
  applyUnreachable,
  classifyFailure,
  enqueueAnswer,
  markSending,
  nextToSend,
  releaseAbandoned,
  resolveEntry,
  retryDelay,
  sameAnswer,
  type AnswerInput,
  type OutboxEntry,
} from "./outbox.js";
import { response } from "../testing/fixtures.js";

const input = (
  recordId: string,
  status: AnswerInput["status"] = "submitted",
  values = { label: "positive" },
  base: AnswerInput["base"] = null,
): AnswerInput => ({ userId: "u1", datasetId: "d1", recordId, status, values, base, queuedAt: "2026-01-01T00:00:00.000Z" });

const T = Date.parse("2026-01-01T00:00:00.000Z") * 1000;
const queue = (...inputs: AnswerInput[]): OutboxEntry[] => inputs.reduce<OutboxEntry[]>((entries, i) => enqueueAnswer(entries, i), []);

describe("outbox rules", () => {
  it("keeps answers in the order given, numbered", () => {
    const entries = queue(input("r1"), input("r2"), input("r3"));
    const t = Date.parse("2026-01-01T00:00:00.000Z") * 1000;
    expect(entries.map((e) => [e.seq, e.recordId])).toEqual([
      [t, "r1"],
      [t + 1, "r2"],
      [t + 2, "r3"],
    ]);
    // a number is not given again after its entry left the queue
    const later = enqueueAnswer([], { ...input("r4"), queuedAt: "2026-01-01T00:00:00.001Z" });
    expect(later[0]?.seq).toBe(t + 1000);
    expect(nextToSend(entries)?.recordId).toBe("r1");
  });

  it("replaces a record's unsent answer by the later one, at the end, keeping the base it was given on", () => {
    const base = { responseId: "x", updatedAt: "t0" };
    const entries = queue(
      input("r1", "draft", { label: "negative" }, base),
      input("r2"),
      input("r1", "submitted", { label: "positive" }, { responseId: "x", updatedAt: "t9" }),
    );
    expect(entries.map((e) => [e.recordId, e.status])).toEqual([
      ["r2", "submitted"],
      ["r1", "submitted"],
    ]);
    expect(entries[1]?.base).toEqual(base);
  });

  it("does not replace an answer being sent; the later one is rebased when the first lands", () => {
    let entries = queue(input("r1", "draft"));
    entries = markSending(entries, entries[0]!.seq);
    entries = enqueueAnswer(entries, input("r1", "submitted"));
    expect(entries).toHaveLength(2);
    expect(nextToSend(entries)).toBeNull(); // r1's second waits behind the first
    const landed = response("draft", { label: "positive" }, "resp-9", "r1");
    entries = applySent(entries, entries[0]!, landed);
    expect(entries).toHaveLength(1);
    expect(entries[0]?.base).toEqual({ responseId: "resp-9", updatedAt: landed.updatedAt });
    expect(nextToSend(entries)?.status).toBe("submitted");
  });

  it("a conflict blocks only its record; other records keep going", () => {
    let entries = queue(input("r1"), input("r2"));
    entries = applyConflict(entries, entries[0]!.seq, response("submitted", { label: "negative" }));
    expect(nextToSend(entries)?.recordId).toBe("r2");
    expect(entries[0]?.state).toBe("conflict");
  });

  it("'mine' sends again based on the server's version (or creates when it was deleted); 'theirs' drops the answer", () => {
    const server = response("submitted", { label: "negative" }, "resp-s");
    let entries = applyConflict(queue(input("r1")), T, server);
    const mine = resolveEntry(entries, T, "mine");
    expect(mine[0]).toMatchObject({ state: "waiting", base: { responseId: "resp-s", updatedAt: server.updatedAt }, server: null });
    entries = applyConflict(queue(input("r1", "submitted", { label: "x" }, { responseId: "gone", updatedAt: "t" })), T, null);
    expect(resolveEntry(entries, T, "mine")[0]?.base).toBeNull();
    expect(resolveEntry(entries, T, "theirs")).toEqual([]);
  });

  it("a new answer replaces a refused one of the record; an answer in conflict stays until chosen on", () => {
    let entries = applyRejected(queue(input("r1", "submitted", { label: "x" })), T, 422);
    entries = enqueueAnswer(entries, input("r1", "submitted", { label: "positive" }));
    expect(entries.map((e) => [e.state, e.values])).toEqual([["waiting", { label: "positive" }]]);
    entries = applyConflict(entries, entries[0]!.seq, null);
    entries = enqueueAnswer(entries, input("r1", "draft"));
    expect(entries.map((e) => e.state)).toEqual(["conflict", "waiting"]);
    expect(nextToSend(entries)).toBeNull(); // the record waits for the choice
  });

  it("counts failed attempts and frees entries left 'sending' by a tab that died", () => {
    let entries = markSending(queue(input("r1")), T);
    expect(nextToSend(entries)).toBeNull();
    entries = releaseAbandoned(entries);
    expect(nextToSend(entries)?.seq).toBe(T);
    entries = applyUnreachable(markSending(entries, T), T);
    expect(entries[0]).toMatchObject({ attempts: 1, sending: false, state: "waiting" });
  });

  it("compares answers by status and values, whatever the key order", () => {
    expect(
      sameAnswer(
        { status: "submitted", values: { a: 1, b: [{ value: "x", rank: 1 }] } },
        response("submitted", { b: [{ value: "x", rank: 1 }], a: 1 }),
      ),
    ).toBe(true);
    expect(sameAnswer({ status: "draft", values: { a: 1 } }, response("submitted", { a: 1 }))).toBe(false);
    expect(sameAnswer({ status: "submitted", values: { a: 1 } }, response("submitted", { a: 2 }))).toBe(false);
    expect(sameAnswer({ status: "discarded", values: {} }, null)).toBe(false);
  });

  it("classifies failures: network, 401, 408, 429 and 5xx retry; 404, 409, 412 compare; other 4xx are refusals", () => {
    expect([undefined, 401, 408, 429, 500, 502, 503].map(classifyFailure)).toEqual(Array(7).fill("unreachable"));
    expect([404, 409, 412].map(classifyFailure)).toEqual(["changed", "changed", "changed"]);
    expect([400, 403, 422].map(classifyFailure)).toEqual(["rejected", "rejected", "rejected"]);
  });

  it("backs off exponentially up to 30 s, with jitter", () => {
    expect([1, 2, 3, 4].map((n) => retryDelay(n, 0))).toEqual([1000, 2000, 4000, 8000]);
    expect(retryDelay(20, 0)).toBe(30_000);
    expect(retryDelay(1, 0.999)).toBeLessThanOrEqual(1200);
    // the server's Retry-After is the wait, within bounds
    expect(retryDelay(1, 0.5, 7000)).toBe(7000);
    expect(retryDelay(6, 0.5, 2000)).toBe(2000);
    expect(retryDelay(1, 0.5, 0)).toBe(1000);
    expect(retryDelay(1, 0.5, 86_400_000)).toBe(600_000);
  });
});
