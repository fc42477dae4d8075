import { beforeEach, describe, expect, it } from "vitest";
import { DatasetRecord } from "../../entities/record.js";
import { ValidationError } from "../../errors/validation-error.js";
import { FIELDS, QUESTIONS, recordProps } from "../../testing/fixtures.js";
import { FakeAnswerServer, MemoryDrafts, MemoryOutbox } from "../../testing/offline-fakes.js";
import type { RecordResponse } from "../../entities/answer.js";
import { QueueAnswerUseCase } from "./queue-answer.js";
import { SendNextAnswerUseCase } from "./send-next-answer.js";
import { ResolveQueuedAnswerUseCase } from "./resolve-queued-answer.js";
import { KeepFormDraftUseCase } from "./keep-form-draft.js";
import { RestoreFormDraftUseCase } from "./restore-form-draft.js";
import { GetUnsentWorkUseCase } from "./unsent-work.js";
import { ClearOfflineAnswersUseCase } from "./clear-offline-answers.js";

let now = 1_000;
const clock = { now: () => now, delay: async () => {} };
const all = Object.values(QUESTIONS);
function record(id: string, saved: RecordResponse | null = null): DatasetRecord {
  const r = new DatasetRecord(recordProps(id, { response: saved }), all, FIELDS, 1);
  r.initialize();
  return r;
}

let outbox: MemoryOutbox, drafts: MemoryDrafts, server: FakeAnswerServer;
let queueAnswer: QueueAnswerUseCase, send: SendNextAnswerUseCase, keep: KeepFormDraftUseCase, restore: RestoreFormDraftUseCase;
beforeEach(() => {
  now = 1_000;
  outbox = new MemoryOutbox();
  drafts = new MemoryDrafts();
  server = new FakeAnswerServer("u1");
  queueAnswer = new QueueAnswerUseCase(outbox, drafts, clock);
  send = new SendNextAnswerUseCase(outbox, drafts, server);
  keep = new KeepFormDraftUseCase(drafts, clock);
  restore = new RestoreFormDraftUseCase(drafts);
});

async function drain(): Promise<string[]> {
  const kinds: string[] = [];
  for (;;) {
    const result = await send.execute("u1");
    if (result.kind === "idle") return kinds;
    kinds.push(result.kind);
    if (result.kind === "unreachable") return kinds;
  }
}

describe("offline answers: queue, send, conflicts", () => {
  it("a server that says when to come back (Retry-After) has its wait in the result; one that does not, none", async () => {
    const r = record("r1");
    r.question("label")?.answer.set("positive");
    await queueAnswer.execute("u1", r, "submitted");
    server.failures = [{ status: 503, retryAfterMs: 7000 }, 503];
    expect(await send.execute("u1")).toMatchObject({ kind: "unreachable", attempts: 1, retryAfterMs: 7000 });
    expect(await send.execute("u1")).not.toHaveProperty("retryAfterMs");
    expect(await send.execute("u1")).toMatchObject({ kind: "sent" });
  });

  it("queues 20 submits while unreachable and sends each exactly once, in order, when the server is back", async () => {
    const records = Array.from({ length: 20 }, (_, i) => record(`r${i + 1}`));
    for (const r of records) {
      r.question("label")?.answer.set("positive");
      await queueAnswer.execute("u1", r, "submitted");
    }
    server.failures = [undefined, 503, 502];
    expect(await drain()).toEqual(["unreachable"]);
    expect(await drain()).toEqual(["unreachable"]);
    expect(await drain()).toEqual(["unreachable"]);
    expect((await outbox.list("u1"))[0]).toMatchObject({ attempts: 3, recordId: "r1" });
    expect(await drain()).toEqual(Array(20).fill("sent"));
    expect(server.calls.filter((c) => c.startsWith("create"))).toEqual([
      ...Array(3).fill("create r1"),
      ...records.map((r) => `create ${r.id}`),
    ]);
    expect(server.responses.size).toBe(20);
    expect(await outbox.list("u1")).toEqual([]);
  });

  it("refuses to queue an incomplete submit", async () => {
    expect(await queueAnswer.execute("u1", record("r1"), "submitted").catch((e: unknown) => e)).toBeInstanceOf(ValidationError);
  });

  it("draft then submit of the same record while offline: one create, the submit is the last word", async () => {
    const r = record("r1");
    r.question("label")?.answer.set("negative");
    const draft = await queueAnswer.execute("u1", r, "draft");
    expect((await queueAnswer.execute("u1", r, "submitted")).replaced).toBe(draft.entry.seq);
    expect(await drain()).toEqual(["sent"]);
    expect(server.calls).toEqual(["create r1"]);
    expect([...server.responses.values()][0]).toMatchObject({ status: "submitted", values: { label: "negative" } });
  });

  it("a second tab sending the same answer does not write it twice (409 -> same answer -> sent)", async () => {
    const r = record("r1");
    r.question("label")?.answer.set("positive");
    await queueAnswer.execute("u1", r, "submitted");
    server.write("r1", { status: "submitted", values: r.valuesFor("submitted") }); // the other tab was first
    const result = await send.execute("u1");
    expect(result.kind).toBe("sent");
    expect(server.calls).toEqual(["create r1", "current r1"]);
    expect(server.responses.size).toBe(1);
  });

  it("an answer that landed before a crash is not sent again: the stale update compares and counts as sent", async () => {
    const saved = server.write("r1", { status: "draft", values: { label: "positive" } });
    const r = record("r1", saved);
    r.question("label")?.answer.set("negative");
    await queueAnswer.execute("u1", r, "submitted");
    server.write("r1", { status: "submitted", values: r.valuesFor("submitted") }); // the earlier attempt landed, then the tab died
    await outbox.change("u1", (es) => es.map((e) => ({ ...e, sending: true })));
    await send.recover("u1");
    expect((await send.execute("u1")).kind).toBe("sent");
  });

  it("a newer response on the server is not overwritten: conflict, then the annotator chooses", async () => {
    const saved = server.write("r1", { status: "draft", values: { label: "positive" } });
    const r = record("r1", saved);
    r.question("label")?.answer.set("negative");
    await queueAnswer.execute("u1", r, "submitted");
    const theirs = server.write("r1", { status: "submitted", values: { label: "positive", text: "reviewed" } });
    r.question("label")?.answer.set("negative");
    const queued2 = record("r2");
    queued2.question("label")?.answer.set("positive");
    await queueAnswer.execute("u1", queued2, "submitted");
    const result = await send.execute("u1");
    expect(result).toMatchObject({ kind: "conflict", server: theirs });
    expect(server.responses.get(theirs.id)?.values).toEqual({ label: "positive", text: "reviewed" });
    // the other record is not held up
    expect((await send.execute("u1")).kind).toBe("sent");
    const [conflict] = await outbox.list("u1");
    expect(conflict?.state).toBe("conflict");
    // keep mine: sent over the server's version
    await new ResolveQueuedAnswerUseCase(outbox, drafts).execute(conflict!, "mine");
    expect((await send.execute("u1")).kind).toBe("sent");
    expect(server.responses.get(theirs.id)).toMatchObject({ status: "submitted", values: { label: "negative" } });
  });

  it("keeping the server's version drops the queued answer and the kept form", async () => {
    const saved = server.write("r1", { status: "draft", values: { label: "positive" } });
    const r = record("r1", saved);
    r.question("label")?.answer.set("negative");
    await keep.execute("u1", r);
    await queueAnswer.execute("u1", r, "submitted");
    server.write("r1", { status: "discarded", values: {} });
    const result = await send.execute("u1");
    expect(result.kind).toBe("conflict");
    const [entry] = await outbox.list("u1");
    expect(await new ResolveQueuedAnswerUseCase(outbox, drafts).execute(entry!, "theirs")).toMatchObject({ status: "discarded" });
    expect(await outbox.list("u1")).toEqual([]);
    expect(await drafts.get("u1", "r1")).toBeNull();
  });

  it("a refused answer (422) is kept, marked, and does not block other records", async () => {
    const a = record("r1");
    a.question("label")?.answer.set("positive");
    const b = record("r2");
    b.question("label")?.answer.set("positive");
    await queueAnswer.execute("u1", a, "submitted");
    await queueAnswer.execute("u1", b, "submitted");
    server.failures = [422];
    expect(await drain()).toEqual(["rejected", "sent"]);
    expect(await outbox.list("u1")).toMatchObject([{ recordId: "r1", state: "rejected", error: 422 }]);
  });
});

describe("forms kept at every change", () => {
  it("keeps the form, restores it into a fresh copy of the record, forgets it when reset", async () => {
    const r = record("r1");
    r.question("text")?.answer.set("half a sent");
    await keep.execute("u1", r);
    r.question("text")?.answer.set("half a sentence");
    now = 2_000;
    await keep.execute("u1", r);
    const fresh = record("r1");
    expect(await restore.execute("u1", fresh)).toBe(true);
    expect(fresh.question("text")?.answer.value).toBe("half a sentence");
    expect(fresh.isModified).toBe(true);
    expect(await restore.execute("u2", record("r1"))).toBe(false); // per user
    fresh.reset();
    await keep.execute("u1", fresh);
    expect(await drafts.get("u1", "r1")).toBeNull();
  });

  it("keeps the base the work started on; a queued answer uses it, so a server change meanwhile is a conflict", async () => {
    const saved = server.write("r1", { status: "submitted", values: { label: "positive" } });
    const r = record("r1", saved);
    r.question("label")?.answer.set("negative");
    await keep.execute("u1", r);
    const newer = server.write("r1", { status: "submitted", values: { label: "positive", text: "by the SDK" } });
    const reloaded = record("r1", newer); // after a reload the record comes with the newer response
    await restore.execute("u1", reloaded);
    await queueAnswer.execute("u1", reloaded, "submitted");
    expect((await send.execute("u1")).kind).toBe("conflict");
  });

  it("a sent answer forgets the form kept before it was queued, but keeps later typing (rebased)", async () => {
    const r = record("r1");
    r.question("label")?.answer.set("positive");
    await keep.execute("u1", r);
    await queueAnswer.execute("u1", r, "draft");
    expect((await send.execute("u1")).kind).toBe("sent");
    expect(await drafts.get("u1", "r1")).toBeNull();

    const s = record("r2");
    s.question("label")?.answer.set("positive");
    await queueAnswer.execute("u1", s, "draft");
    now = 5_000;
    s.question("text")?.answer.set("more");
    await keep.execute("u1", s);
    const result = await send.execute("u1");
    expect((await drafts.get("u1", "r2"))?.base).toEqual(
      result.kind === "sent" ? { responseId: result.response.id, updatedAt: result.response.updatedAt } : null,
    );
  });

  it("counts and clears a user's unsent work (sign-out)", async () => {
    const r = record("r1");
    r.question("label")?.answer.set("positive");
    await keep.execute("u1", r);
    await queueAnswer.execute("u1", r, "submitted");
    await queueAnswer.execute("u2", record("r2"), "draft");
    expect(await new GetUnsentWorkUseCase(outbox, drafts).execute("u1")).toEqual({ answers: 1, forms: 1 });
    await new ClearOfflineAnswersUseCase(outbox, drafts).execute("u1");
    expect(await new GetUnsentWorkUseCase(outbox, drafts).execute("u1")).toEqual({ answers: 0, forms: 0 });
    expect(await new GetUnsentWorkUseCase(outbox, drafts).execute("u2")).toEqual({ answers: 1, forms: 0 });
  });
});
