import { describe, expect, it } from "vitest";
import { ErrorCode, PageCriteria, RecordCriteria, RepositoryError, type AnswerSyncRepository } from "@tessera/domain";
import { MemoryDrafts, MemoryOutbox } from "@tessera/domain/testing";
import { AnnotationViewModel } from "../annotation/annotation-view-model";
import { FakeServer, recordProps } from "../annotation/test-fixtures";
import { ManualOfflineEnvironment, testOfflineAnswers } from "./test-environment";

const flush = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
};

async function page(server: FakeServer, offline: ReturnType<typeof testOfflineAnswers>, mode: "focus" | "bulk" = "focus") {
  const useCases = server.useCases(offline);
  const vm = new AnnotationViewModel("d", useCases, new RecordCriteria({ datasetId: "d", page: new PageCriteria(1, mode) }), {
    autosaveMs: 60_000,
  });
  await vm.load();
  await flush();
  return vm;
}

describe("the annotation page with offline answers", () => {
  it("keeps every change of the focused form and gives it back when the record is shown again (a reload)", async () => {
    const server = new FakeServer(Array.from({ length: 5 }, (_, i) => recordProps(i + 1)));
    const drafts = new MemoryDrafts();
    const first = await page(server, testOfflineAnswers(server, { drafts }));
    first.form.set(first.current!, first.current!.question("comment")!, "typed before the tab died");
    await flush();
    expect((await drafts.get("u1", "r1"))?.answers["comment"]).toBe(JSON.stringify("typed before the tab died"));
    expect(first.restoredWork).toBe(false);
    // the tab dies here: no unload, no flush of the autosave

    const reloaded = await page(server, testOfflineAnswers(server, { drafts }));
    expect(reloaded.current?.id).toBe("r1");
    expect(reloaded.current?.question("comment")?.answer.value).toBe("typed before the tab died");
    expect(reloaded.restoredWork).toBe(true);
    // Reset gives the work up, here and in the browser
    reloaded.reset();
    await flush();
    expect(reloaded.restoredWork).toBe(false);
    expect(await drafts.get("u1", "r1")).toBeNull();
    expect(server.calls).toEqual([]);
  });

  it("offline, Submit keeps the answer on this device and shows the next record; it is sent when the connection is back", async () => {
    const server = new FakeServer(Array.from({ length: 10 }, (_, i) => recordProps(i + 1)));
    const offline = testOfflineAnswers(server);
    const vm = await page(server, offline);
    offline.env.setOnline(false);
    for (let i = 1; i <= 3; i++) {
      vm.form.set(vm.current!, vm.current!.question("sentiment")!, "positive");
      void vm.act("submitted");
      await flush();
      expect(vm.current?.id).toBe(`r${i + 1}`);
    }
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "negative");
    void vm.act("draft");
    await flush();
    expect(offline.offline.waiting).toBe(4);
    expect(vm.isQueued(vm.current!)).toBe(true);
    expect(vm.hasUnsavedWork).toBe(true);
    expect(server.calls).toEqual([]);
    offline.env.setOnline(true);
    await flush(60);
    expect(server.calls).toEqual(["create r1 submitted", "create r2 submitted", "create r3 submitted", "create r4 draft"]);
    expect(vm.current?.isDraft).toBe(true);
    expect(vm.hasUnsavedWork).toBe(false);
  });

  it("two tabs on one record: the answer of one, sent by the other, never carries the other's typed work over it (a conflict is shown)", async () => {
    const server = new FakeServer(Array.from({ length: 5 }, (_, i) => recordProps(i + 1)));
    const shared = { env: new ManualOfflineEnvironment(), outbox: new MemoryOutbox(), drafts: new MemoryDrafts() };
    // tab B's own requests fail, so tab A holds the send lock next and sends B's answer (as happens under load)
    const unavailable = async (): Promise<never> => {
      throw new RepositoryError(ErrorCode.ERROR_CREATING_RECORD_RESPONSE, 503);
    };
    const bSync: AnswerSyncRepository = { create: unavailable, update: unavailable, current: (id) => server.current(id) };
    const offlineA = testOfflineAnswers(server, shared);
    const a = await page(server, offlineA);
    const b = await page(server, testOfflineAnswers(bSync, shared));
    expect([a.current?.id, b.current?.id]).toEqual(["r1", "r1"]);
    // A is answering r1; B answers r1 and r2
    a.form.set(a.current!, a.current!.question("sentiment")!, "negative");
    a.form.set(a.current!, a.current!.question("comment")!, "my reasons");
    b.form.set(b.current!, b.current!.question("sentiment")!, "positive");
    const bFirst = b.act("submitted");
    await flush();
    b.form.set(b.current!, b.current!.question("sentiment")!, "neutral");
    const bSecond = b.act("submitted");
    await flush(60);
    expect(server.calls).toEqual(["create r1 submitted", "create r2 submitted"]); // sent by tab A
    // B's Submits settled in B (nothing left 'saving' there), whichever tab sent them
    expect([await bFirst, await bSecond]).toEqual([true, true]);
    expect(b.hasUnsavedWork).toBe(false);
    // A shows r2 as B answered it (nothing typed there); A's work on r1 stays on the version it started on
    expect(a.queue?.records.find((r) => r.id === "r2")?.answer?.status).toBe("submitted");
    expect(a.current?.answer).toBeNull();
    expect(await a.act("submitted")).toBe(false);
    await flush();
    expect(offlineA.offline.conflicts.map((e) => [e.recordId, e.values, e.server?.values])).toEqual([
      ["r1", { sentiment: "negative", comment: "my reasons" }, { sentiment: "positive" }],
    ]);
    expect(server.responses.get("r1")?.values).toEqual({ sentiment: "positive" }); // not written over
  });

  it("bulk without a connection: each selected record's answer is queued, then sent in order", async () => {
    const server = new FakeServer(Array.from({ length: 10 }, (_, i) => recordProps(i + 1)));
    const offline = testOfflineAnswers(server);
    const vm = await page(server, offline, "bulk");
    offline.env.setOnline(false);
    server.bulkUnreachable = true;
    vm.togglePage();
    vm.toggleSelected(vm.records[9]!);
    vm.form.set(vm.records[0]!, vm.records[0]!.question("sentiment")!, "neutral");
    await vm.bulkAct("submitted");
    await flush();
    expect(vm.notice).toMatchObject({ key: "offline.bulkQueued", params: { count: 9 } });
    expect(offline.offline.waiting).toBe(9);
    offline.env.setOnline(true);
    await flush(80);
    expect(server.calls).toEqual(Array.from({ length: 9 }, (_, i) => `create r${i + 1} submitted`));
    expect(server.responses.get("r5")?.values).toEqual({ sentiment: "neutral" });
  });
});
