import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import { enqueueAnswer, markSending, type AnswerInput, type FormDraft } from "@tessera/domain";
import { IndexedDbFormDraftStore, IndexedDbOutboxStore, OfflineDatabaseHandle } from "./indexeddb-stores.js";

let n = 0;
const fresh = () => new OfflineDatabaseHandle(`test-offline-${++n}`);
const input = (userId: string, recordId: string): AnswerInput => ({
  userId,
  datasetId: "d1",
  recordId,
  status: "submitted",
  values: { label: "positive" },
  base: null,
  queuedAt: "2026-01-01T00:00:00.000Z",
});
const draft = (userId: string, recordId: string, savedAt: string): FormDraft => ({
  userId,
  datasetId: "d1",
  recordId,
  answers: { text: JSON.stringify("typed") },
  base: null,
  savedAt,
});

describe("IndexedDB outbox (through idb, on fake-indexeddb)", () => {
  it("keeps each user's entries in order, changes them atomically and survives a reopen", async () => {
    const handle = fresh();
    const store = new IndexedDbOutboxStore(handle);
    for (const r of ["r1", "r2", "r3"]) await store.change("u1", (es) => enqueueAnswer(es, input("u1", r)));
    await store.change("u2", (es) => enqueueAnswer(es, input("u2", "r9")));
    const [first] = await store.list("u1");
    await store.change("u1", (es) =>
      markSending(
        es.filter((e) => e.recordId !== "r2"),
        first!.seq,
      ),
    );
    const reopened = new IndexedDbOutboxStore(new OfflineDatabaseHandle(`test-offline-${n}`));
    expect((await reopened.list("u1")).map((e) => [e.seq - first!.seq, e.recordId, e.sending])).toEqual([
      [0, "r1", true],
      [2, "r3", false],
    ]);
    expect((await reopened.list("u2")).map((e) => e.recordId)).toEqual(["r9"]);
    await reopened.clear("u1");
    expect(await store.list("u1")).toEqual([]);
    expect(await store.list("u2")).toHaveLength(1);
  });

  it("concurrent changes (two tabs) both land: each change sees the other's result", async () => {
    const handle = fresh();
    const a = new IndexedDbOutboxStore(handle);
    const b = new IndexedDbOutboxStore(new OfflineDatabaseHandle(`test-offline-${n}`));
    await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).change("u1", (es) => enqueueAnswer(es, input("u1", `r${i}`)))));
    const entries = await a.list("u1");
    expect(entries).toHaveLength(10);
    expect(new Set(entries.map((e) => e.seq)).size).toBe(10);
  });
});

describe("the offline database", () => {
  it("repairs a database of that name created empty by something else", async () => {
    const name = `test-offline-${++n}`;
    await new Promise<void>((resolve) => {
      const r = indexedDB.open(name, 1);
      r.onsuccess = () => {
        r.result.close();
        resolve();
      };
    });
    const store = new IndexedDbOutboxStore(new OfflineDatabaseHandle(name));
    await store.change("u1", (es) => enqueueAnswer(es, input("u1", "r1")));
    expect(await store.list("u1")).toHaveLength(1);
  });
});

describe("IndexedDB kept forms", () => {
  it("stores one form per user and record, changed in one transaction (null removes it)", async () => {
    const store = new IndexedDbFormDraftStore(fresh());
    const put = (d: FormDraft) => store.change(d.userId, d.recordId, () => d);
    await put(draft("u1", "r1", "2026-01-01T00:00:01.000Z"));
    await put(draft("u1", "r1", "2026-01-01T00:00:05.000Z"));
    await put(draft("u2", "r1", "2026-01-01T00:00:01.000Z"));
    expect((await store.get("u1", "r1"))?.savedAt).toBe("2026-01-01T00:00:05.000Z");
    // what the rule decides from the stored draft: kept when saved after a time, removed otherwise
    const olderThan = (t: string) => (d: FormDraft | null) => (d && d.savedAt > t ? d : null);
    await store.change("u1", "r1", olderThan("2026-01-01T00:00:02.000Z"));
    expect(await store.get("u1", "r1")).not.toBeNull();
    await store.change("u1", "r1", olderThan("2026-01-01T00:00:05.000Z"));
    expect(await store.get("u1", "r1")).toBeNull();
    expect(await store.list("u2")).toHaveLength(1);
    await store.clear("u2");
    expect(await store.list("u2")).toEqual([]);
  });
});
