import { afterEach, describe, expect, it, vi } from "vitest";
import { RecordCriteria, PageCriteria } from "@tessera/domain";
import { AnnotationViewModel } from "./annotation-view-model";
import { FakeServer, recordProps } from "./test-fixtures";

const flush = () => new Promise((r) => setTimeout(r, 0));

async function setup(count = 30, mode: "focus" | "bulk" = "focus", autosaveMs = 1000) {
  const server = new FakeServer(Array.from({ length: count }, (_, i) => recordProps(i + 1)));
  const useCases = server.useCases();
  const vm = new AnnotationViewModel("d", useCases, new RecordCriteria({ datasetId: "d", page: new PageCriteria(1, mode) }), {
    autosaveMs,
  });
  await vm.load();
  await useCases.loadRecords.whenBuffered();
  return { server, vm, useCases };
}

afterEach(() => {
  vi.useRealTimers();
});

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
    for (let i = 0; i < 6; i++) {
      vm.next();
      await flush();
    }
    expect(vm.current?.id).toBe("r12");
  });

  it("shows the next record before the response lands: no network call between the click and the next record", async () => {
    const { vm, server } = await setup();
    await vm.init();
    const searches = server.searches;
    const metricsCalls = server.metricsCalls;
    let release!: () => void;
    server.saveGate = new Promise((r) => {
      release = r;
    });
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "negative");
    const revision = vm.revision;
    const done = vm.act("submitted");
    // synchronously after the click: the next record is shown, nothing was awaited
    expect(vm.current?.id).toBe("r2");
    expect(vm.revision).toBeGreaterThan(revision);
    expect(vm.hasUnsavedWork).toBe(true); // beforeunload prompt while the response is on its way
    await flush();
    expect(server.responses.has("r1")).toBe(false);
    expect(server.searches).toBe(searches);
    expect(server.metricsCalls).toBe(metricsCalls); // 'My progress' waits for the response
    release();
    expect(await done).toBe(true);
    await flush();
    expect(server.responses.get("r1")).toMatchObject({ status: "submitted", values: { sentiment: "negative" } });
    expect(server.metricsCalls).toBe(metricsCalls + 1);
    expect(vm.hasUnsavedWork).toBe(false);
    expect(vm.failedSaves).toEqual([]);
  });

  it("loads buffers while responses are in flight, without skipping or repeating a record", async () => {
    const { vm, server, useCases } = await setup(30);
    let release!: () => void;
    server.saveGate = new Promise((r) => {
      release = r;
    });
    const saves: Array<Promise<boolean>> = [];
    const searches = server.searches;
    for (let i = 1; i <= 6; i++) {
      expect(vm.current?.id).toBe(`r${i}`);
      vm.form.set(vm.current!, vm.current!.question("sentiment")!, "positive");
      saves.push(vm.act("submitted"));
    }
    await flush();
    await useCases.loadRecords.whenBuffered();
    expect(server.searches).toBe(searches + 1); // page 5 started a buffer: from the 5th record, 10 + 5 uncertain ones
    release();
    expect(await Promise.all(saves)).toEqual([true, true, true, true, true, true]);
    await flush();
    await useCases.loadRecords.whenBuffered();
    for (let i = 7; i <= 25; i++) {
      expect(vm.current?.id).toBe(`r${i}`);
      vm.next();
      await flush();
      await useCases.loadRecords.whenBuffered();
    }
  });

  it("a failed background save is reported, keeps the answers, and leads back to the record to retry", async () => {
    const failures: string[] = [];
    const server = new FakeServer(Array.from({ length: 40 }, (_, i) => recordProps(i + 1)));
    const useCases = server.useCases();
    const vm = new AnnotationViewModel("d", useCases, new RecordCriteria({ datasetId: "d" }), {
      onSaveFailed: (f) => failures.push(`${f.record.id} ${f.status}`),
    });
    await vm.load();
    await useCases.loadRecords.whenBuffered();
    server.failSaves = 1;
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "neutral");
    vm.form.set(vm.current!, vm.current!.question("comment")!, "keep me");
    expect(await vm.act("submitted")).toBe(false);
    expect(vm.current?.id).toBe("r2");
    expect(failures).toEqual(["r1 submitted"]);
    expect(vm.failedSaves.map((f) => f.record.id)).toEqual(["r1"]);
    const failed = vm.failedSaves[0]!;
    expect(vm.isFailed(failed.record)).toBe(true);
    // the user goes on well past the queue's kept window: the failed record is dropped from the queue...
    for (let i = 0; i < 30; i++) {
      vm.next();
      await flush();
      await useCases.loadRecords.whenBuffered();
    }
    expect(vm.queue!.records.some((r) => r.id === "r1")).toBe(false);
    // ...and 'Go to record' brings it back with the answers given
    vm.goToFailed(failed);
    expect(vm.current?.id).toBe("r1");
    expect(vm.current?.question("sentiment")?.answer.value).toBe("neutral");
    expect(vm.current?.question("comment")?.answer.value).toBe("keep me");
    // retry fails once more, then succeeds
    server.failSaves = 1;
    expect(await vm.retryFailed(failed)).toBe(false);
    expect(failures).toEqual(["r1 submitted", "r1 submitted"]);
    expect(await vm.retryFailed(vm.failedSaves[0]!)).toBe(true);
    expect(vm.failedSaves).toEqual([]);
    expect(server.responses.get("r1")).toMatchObject({ status: "submitted", values: { sentiment: "neutral", comment: "keep me" } });
  });

  it("a second save of a record waits for the first (create, then update); one not sent yet is replaced by the last word", async () => {
    const { vm, server } = await setup(1);
    let release!: () => void;
    server.saveGate = new Promise((r) => {
      release = r;
    });
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "positive");
    const first = vm.act("submitted"); // the last record: it stays shown
    expect(vm.current?.id).toBe("r1");
    for (let i = 0; i < 10; i++) await flush(); // the first is on its way
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "negative");
    const second = vm.act("submitted");
    release();
    expect(await Promise.all([first, second])).toEqual([true, true]);
    expect(server.calls).toEqual(["create r1 submitted", "update r1 submitted"]);
    expect(server.responses.get("r1")?.values).toEqual({ sentiment: "negative" });
    // two answers given before either is sent: only the last is sent, and both callers learn it landed
    server.saveGate = new Promise((r) => {
      release = r;
    });
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "positive");
    const a = vm.act("draft");
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "neutral");
    const b = vm.act("submitted");
    release();
    expect(await Promise.all([a, b])).toEqual([true, true]);
    expect(server.calls.slice(2)).toEqual(["update r1 submitted"]);
    // Clear right after a Submit waits for the response, then deletes it
    server.saveGate = new Promise((r) => {
      release = r;
    });
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "neutral");
    const third = vm.act("submitted");
    const cleared = vm.clear();
    release();
    await Promise.all([third, cleared]);
    expect(server.responses.has("r1")).toBe(false);
    expect(vm.current?.isPending).toBe(true);
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
    await flush();
    await flush();
    expect(vm.criteria.status).toBe("submitted");
    expect(vm.records.map((r) => r.id)).toEqual(["r1"]);
  });

  it("keeps the answer for the latest criteria when an earlier load answers last", async () => {
    const { vm, useCases } = await setup(3);
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "positive");
    await vm.act("submitted");
    const realLoad = useCases.loadRecords.load.bind(useCases.loadRecords);
    let releaseFirst: () => void = () => {};
    const firstGate = new Promise<void>((r) => {
      releaseFirst = r;
    });
    let calls = 0;
    useCases.loadRecords.load = async (criteria) => {
      calls++;
      if (calls === 1) await firstGate; // the 'submitted' load is slow
      return realLoad(criteria);
    };
    vm.setStatus("submitted");
    vm.setStatus("pending");
    await flush();
    await flush();
    expect(vm.records.map((r) => r.id)).toEqual(["r2"]);
    releaseFirst();
    await flush();
    await flush();
    expect(vm.criteria.status).toBe("pending");
    expect(vm.records.map((r) => r.id)).toEqual(["r2"]);
  });
});

describe("AnnotationViewModel, a total the server gives as a lower bound (issue 31)", () => {
  it("flags the total as a lower bound, keeps paging past it, and offers no select-all-matched", async () => {
    const server = new FakeServer(Array.from({ length: 60 }, (_, i) => recordProps(i + 1)));
    server.totalBound = 20;
    const useCases = server.useCases();
    const vm = new AnnotationViewModel("d", useCases, new RecordCriteria({ datasetId: "d", page: new PageCriteria(1, "focus") }));
    await vm.load();
    await useCases.loadRecords.whenBuffered();
    expect(vm.total).toBe(20);
    expect(vm.totalIsLowerBound).toBe(true);
    // Past the bound: the queue still buffers and moves on to the last record, where the total is exact.
    for (let i = 1; i < 60; i++) {
      expect(vm.hasNext).toBe(true);
      vm.next();
      await flush();
      await useCases.loadRecords.whenBuffered();
    }
    expect(vm.current?.id).toBe("r60");
    expect(vm.total).toBe(60);
    expect(vm.totalIsLowerBound).toBe(false);
    expect(vm.hasNext).toBe(false);
  });

  it("flags the total of a metadata filter without text as a lower bound too (PostgreSQL's TESSERA_FILTER_TOTAL_BOUND: '1,000+')", async () => {
    const server = new FakeServer(Array.from({ length: 30 }, (_, i) => recordProps(i + 1)));
    const useCases = server.useCases();
    const vm = new AnnotationViewModel("d", useCases, new RecordCriteria({ datasetId: "d", page: new PageCriteria(1, "focus") }));
    await vm.load();
    expect(vm.totalIsLowerBound).toBe(false);
    server.totalBound = 10;
    vm.setCriteria((c) => {
      c.metadata = [
        { kind: "terms", name: "source", values: ["news"] },
        { kind: "range", name: "quality", ge: 0.25, le: 0.75 },
      ];
    });
    await flush();
    await flush();
    await useCases.loadRecords.whenBuffered();
    expect(vm.total).toBe(10);
    expect(vm.totalIsLowerBound).toBe(true);
  });

  it("offers no 'select all matched' when the total is a lower bound", async () => {
    const server = new FakeServer(Array.from({ length: 150 }, (_, i) => recordProps(i + 1)));
    server.totalBound = 100;
    const useCases = server.useCases();
    const vm = new AnnotationViewModel("d", useCases, new RecordCriteria({ datasetId: "d", page: new PageCriteria(1, "bulk") }));
    await vm.load();
    vm.setCriteria((c) => {
      c.searchText = "Record";
    });
    await flush();
    await flush();
    vm.togglePage();
    expect(vm.totalIsLowerBound).toBe(true);
    expect(vm.canSelectAllMatched).toBe(false);
    server.totalBound = null;
    vm.setCriteria((c) => {
      c.searchText = "Record 1";
    });
    await flush();
    await flush();
    vm.togglePage();
    expect(vm.totalIsLowerBound).toBe(false);
    expect(vm.canSelectAllMatched).toBe(true);
  });
});

describe("AnnotationViewModel, bulk view", () => {
  it("applies one form to the selected records in chunks of 10 and reports per-record failures", async () => {
    const { vm, server } = await setup(50, "bulk");
    await vm.setPageSize(50);
    await flush();
    await flush();
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
    vm.setCriteria((c) => {
      c.searchText = "Record";
    });
    await flush();
    await flush();
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

describe("AnnotationViewModel, my progress and answer filters", () => {
  it("'My progress' comes from the server metrics and is refreshed after submit, discard, draft, autosave, clear and bulk", async () => {
    const { vm, server } = await setup(5, "focus", 5);
    await vm.init();
    expect(vm.metrics).toMatchObject({ total: 5, submitted: 0, pending: 5 });
    vm.form.set(vm.current!, vm.current!.question("sentiment")!, "positive");
    await vm.act("submitted");
    await flush();
    expect(vm.metrics).toMatchObject({ submitted: 1, pending: 4 });
    await vm.act("discarded");
    await flush();
    expect(vm.metrics).toMatchObject({ submitted: 1, discarded: 1, pending: 3 });
    await vm.act("draft");
    await flush();
    expect(vm.metrics).toMatchObject({ draft: 1, pending: 2 });
    vm.form.set(vm.current!, vm.current!.question("comment")!, "typing");
    await new Promise((r) => setTimeout(r, 20));
    await flush();
    expect(vm.responseEvents).toBe(4);
    await vm.clear();
    await flush();
    expect(vm.metrics).toMatchObject({ draft: 0, pending: 3 });
    expect(server.metricsCalls).toBe(6);
  });

  it("bulk actions refresh the metrics; the counts do not depend on the records loaded in the session", async () => {
    const { vm, server } = await setup(30, "bulk");
    await vm.refreshMetrics();
    expect(vm.metrics?.pending).toBe(30);
    vm.togglePage();
    await vm.bulkAct("discarded");
    await flush();
    expect(vm.metrics).toMatchObject({ total: 30, discarded: 10, pending: 20 });
    expect(server.metricsCalls).toBe(2);
  });

  it("keeps the last counts when the metrics call fails", async () => {
    const server = new FakeServer([recordProps(1)]);
    const useCases = server.useCases();
    let fail = false;
    const vm = new AnnotationViewModel("d", {
      ...useCases,
      metrics: {
        execute: async () => {
          if (fail) throw new Error("500");
          return server.metrics();
        },
      },
    });
    await vm.init();
    expect(vm.metrics?.total).toBe(1);
    fail = true;
    await vm.refreshMetrics();
    expect(vm.metrics?.total).toBe(1);
  });

  it("sets and removes response and suggestion filters (one per question and property) and reloads from page 1", async () => {
    const { vm } = await setup(30);
    await vm.loadAgents();
    expect(vm.agentsFor("sentiment")).toEqual(["gpt-4", "human"]);
    expect(vm.agentsFor("comment")).toEqual([]);
    vm.next();
    vm.setResponseFilter("sentiment", { kind: "terms", question: "sentiment", values: ["positive"] });
    expect(vm.criteria.page.page).toBe(1);
    vm.setSuggestionFilter("sentiment", "agent", { kind: "terms", question: "sentiment", property: "agent", values: ["gpt-4"] });
    vm.setSuggestionFilter("sentiment", "score", { kind: "range", question: "sentiment", property: "score", ge: 0.5, le: null });
    vm.setSuggestionFilter("sentiment", "agent", { kind: "terms", question: "sentiment", property: "agent", values: ["human"] });
    expect(vm.criteria.responses).toEqual([{ kind: "terms", question: "sentiment", values: ["positive"] }]);
    expect(vm.criteria.suggestions.map((s) => [s.property, s.kind === "terms" ? s.values : s.ge])).toEqual([
      ["score", 0.5],
      ["agent", ["human"]],
    ]);
    const filters = vm.criteria.toSearchBody().filters?.and ?? [];
    expect(filters).toContainEqual({ type: "range", scope: { entity: "suggestion", question: "sentiment", property: "score" }, ge: 0.5 });
    expect(filters).toContainEqual({ type: "terms", scope: { entity: "response", question: "sentiment" }, values: ["positive"] });
    vm.setResponseFilter("sentiment", null);
    vm.setSuggestionFilter("sentiment", "score", null);
    expect(vm.criteria.responses).toEqual([]);
    expect(vm.criteria.suggestions).toHaveLength(1);
  });

  it("an agents call that fails leaves the agent filter empty", async () => {
    const server = new FakeServer([recordProps(1)]);
    const vm = new AnnotationViewModel("d", {
      ...server.useCases(),
      agents: {
        execute: async () => {
          throw new Error("x");
        },
      },
    });
    await vm.loadAgents();
    expect(vm.agents).toEqual([]);
  });
});
