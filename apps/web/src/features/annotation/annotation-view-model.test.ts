import { afterEach, describe, expect, it, vi } from "vitest";
import { RecordCriteria, PageCriteria } from "@tessera/domain";
import { AnnotationViewModel } from "./annotation-view-model";
import { FakeServer, recordProps } from "./test-fixtures";

const flush = () => new Promise((r) => setTimeout(r, 0));

async function setup(count = 30, mode: "focus" | "bulk" = "focus", autosaveMs = 1000) {
  const server = new FakeServer(Array.from({ length: count }, (_, i) => recordProps(i + 1)));
  const useCases = server.useCases();
  const vm = new AnnotationViewModel("d", useCases, new RecordCriteria({ datasetId: "d", page: new PageCriteria(1, mode) }), { autosaveMs });
  await vm.load();
  await useCases.loadRecords.whenBuffered();
  return { server, vm, useCases };
}

afterEach(() => { vi.useRealTimers(); });

describe("AnnotationViewModel, focus view", () => {
  it("shows the first pending record and enables submit only when required questions are answered", async () => {
    const { vm } = await setup();
    expect(vm.current?.id).toBe("r1");
    expect(vm.canSubmit).toBe(false);
    const q = vm.current!.question("sentiment")!;
    vm.form.set(vm.current!, q, "positive");
    expect(vm.canSubmit).toBe(true);
  });

  it("submits, stores the response and advances to the next record without waiting for the network (queue prefetch)", async () => {
    const { vm, server } = await setup();
    const searchesBefore = server.searches;
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "negative");
    expect(await vm.act("submitted")).toBe(true);
    expect(server.responses.get("r1")).toMatchObject({ status: "submitted", values: { sentiment: "negative" } });
    // r2 was already in the queue: shown synchronously
    expect(vm.current?.id).toBe("r2");
    expect(server.searches).toBe(searchesBefore);
  });

  it("prefetches the next buffer when 5 or fewer records are ahead, and pages on past record 10", async () => {
    const { vm, server, useCases } = await setup();
    const before = server.searches;
    for (let i = 0; i < 5; i++) vm.next();
    await flush();
    await useCases.loadRecords.whenBuffered();
    expect(server.searches).toBe(before + 1);
    for (let i = 0; i < 6; i++) { vm.next(); await flush(); }
    expect(vm.current?.id).toBe("r12");
  });

  it("autosaves a draft a few seconds after a change, showing Saving then Saved", async () => {
    vi.useFakeTimers();
    const { vm, server } = await setup(3, "focus", 2000);
    vm.form.set(vm.current!, vm.current!.question("comment")!, "half done");
    vi.advanceTimersByTime(1999);
    expect(server.calls).toEqual([]);
    vi.advanceTimersByTime(1);
    expect(vm.saveState).toBe("saving");
    await vi.runAllTimersAsync();
    expect(vm.saveState).toBe("saved");
    expect(server.responses.get("r1")).toMatchObject({ status: "draft", values: { comment: "half done" } });
    expect(vm.current?.isDraft).toBe(true);
  });

  it("does not autosave a submitted record, and guards leaving it with unsaved changes", async () => {
    const { vm } = await setup(3, "focus", 10);
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "positive");
    await vm.act("submitted");
    vm.previous();
    await flush();
    expect(vm.current?.id).toBe("r1");
    expect(vm.current?.isSubmitted).toBe(true);
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "neutral");
    vm.next();
    expect(vm.guard).not.toBeNull();
    expect(vm.current?.id).toBe("r1");
    vm.cancelGuard();
    expect(vm.current?.question("sentiment")?.answer.value).toBe("neutral");
    vm.next();
    vm.ignoreGuard();
    expect(vm.current?.id).toBe("r2");
  });

  it("discards with any answer, clears back to pending, and resets to the saved answers", async () => {
    const { vm, server } = await setup(3);
    await vm.act("discarded");
    expect(server.responses.get("r1")?.status).toBe("discarded");
    vm.previous();
    await flush();
    expect(vm.current?.isDiscarded).toBe(true);
    expect(vm.canDiscard).toBe(false);
    vm.form.set(vm.current!, vm.current!.question("comment")!, "x");
    vm.reset();
    expect(vm.current?.question("comment")?.answer.value).toBe("");
    await vm.clear();
    expect(server.responses.has("r1")).toBe(false);
    expect(vm.current?.isPending).toBe(true);
  });

  it("changing the status filter reloads from page 1 in focus view", async () => {
    const { vm } = await setup(3);
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "positive");
    await vm.act("submitted");
    vm.setStatus("submitted");
    await flush(); await flush();
    expect(vm.criteria.status).toBe("submitted");
    expect(vm.records.map((r) => r.id)).toEqual(["r1"]);
  });
});

describe("AnnotationViewModel, bulk view", () => {
  it("applies one form to the selected records in chunks of 10 and reports per-record failures", async () => {
    const { vm, server } = await setup(50, "bulk");
    await vm.setPageSize(50);
    await flush(); await flush();
    expect(vm.records).toHaveLength(50);
    expect(vm.canBulkAct).toBe(false);
    vm.togglePage();
    expect(vm.selectedCount).toBe(50);
    vm.toggleSelected(vm.records[1]!);
    expect(vm.selectedCount).toBe(49);
    vm.form.set(vm.records[0]!, vm.records[0]!.question("sentiment")!, "neutral");
    server.failBulkFor.add("r3");
    await vm.bulkAct("submitted");
    expect(server.calls.filter((c) => c.startsWith("bulk"))).toEqual(["bulk 10", "bulk 10", "bulk 10", "bulk 10", "bulk 9"]);
    expect(server.responses.size).toBe(48);
    expect(server.responses.get("r50")).toMatchObject({ status: "submitted", values: { sentiment: "neutral" } });
    expect(vm.notice?.key).toBe("annotation.bulk.someFailed");
    // the pending view reloads without the submitted ones
    expect(vm.records.map((r) => r.id)).toEqual(["r2", "r3"]);
  });

  it("offers select-all-matched only when filtered, and confirms above 100 records", async () => {
    const { vm, server } = await setup(150, "bulk");
    vm.togglePage();
    expect(vm.canSelectAllMatched).toBe(false);
    vm.setCriteria((c) => { c.searchText = "Record"; });
    await flush(); await flush();
    vm.togglePage();
    expect(vm.canSelectAllMatched).toBe(true);
    vm.selectAllMatched();
    expect(vm.selectedCount).toBe(150);
    await vm.bulkAct("discarded");
    expect(vm.confirmBulk).toBe("discarded");
    expect(server.calls).toEqual([]);
    await vm.bulkAct("discarded", true);
    expect(server.responses.size).toBe(150);
    expect(vm.notice).toMatchObject({ key: "annotation.bulk.done.discarded", params: { total: 150 } });
  });
});
