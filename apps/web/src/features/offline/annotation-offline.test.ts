import { describe, expect, it } from "vitest";
import { PageCriteria, RecordCriteria } from "@tessera/domain";
import { MemoryDrafts } from "@tessera/domain/testing";
import { AnnotationViewModel } from "../annotation/annotation-view-model";
import { FakeServer, recordProps } from "../annotation/test-fixtures";
import { testOfflineAnswers } from "./test-environment";

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
