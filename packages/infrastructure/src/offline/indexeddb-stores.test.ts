import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { enqueueAnswer, markSending, type AnswerInput, type FormDraft } from "@tessera/domain";
import {
  IndexedDbFormDraftStore,
  IndexedDbOutboxStore,
  OfflineDatabaseHandle,
  OfflineStorageUnavailableError,
  type FrozenPageWaker,
} from "./indexeddb-stores.js";

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

/**
 * A database of that name without the stores, held open by a connection that ignores 'versionchange': the
 * handle's repair (an upgrade) waits for it without end, like an open queued behind a page that the browser
 * froze in its back/forward cache in the middle of creating the database. `release` closes it (the eviction).
 */
async function heldOpen(name: string): Promise<{ release: () => void }> {
  const db = await new Promise<IDBDatabase>((resolve) => {
    const r = indexedDB.open(name, 1);
    r.onsuccess = () => resolve(r.result);
  });
  return { release: () => db.close() };
}

const waker = (onWake: () => void = () => undefined): FrozenPageWaker & { listening: number; woken: number } => {
  const w = {
    listening: 0,
    woken: 0,
    listen: () => void w.listening++,
    wake: () => {
      w.woken++;
      onWake();
    },
  };
  return w;
};

describe("opening the offline database never hangs", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("an open that takes long wakes the app's frozen pages, and completes once the one holding it is gone", async () => {
    const name = `test-offline-${++n}`;
    const held = await heldOpen(name);
    const w = waker(() => held.release());
    const store = new IndexedDbFormDraftStore(new OfflineDatabaseHandle({ name, waker: w, wakeAfterMs: 20, timeoutMs: 5000 }));
    await store.change("u1", "r1", () => draft("u1", "r1", "2026-01-01T00:00:01.000Z"));
    expect(await store.get("u1", "r1")).not.toBeNull();
    expect(w.listening).toBe(1); // this page too is one that another page's wake evicts when the browser froze it
    expect(w.woken).toBe(1);
  });

  it("an open that does not complete fails with OfflineStorageUnavailableError after the timeout; the next use tries again", async () => {
    const name = `test-offline-${++n}`;
    const held = await heldOpen(name);
    const w = waker();
    const store = new IndexedDbFormDraftStore(new OfflineDatabaseHandle({ name, waker: w, wakeAfterMs: 10, timeoutMs: 150 }));
    const write = () => store.change("u1", "r1", () => draft("u1", "r1", "2026-01-01T00:00:01.000Z"));
    await expect(write()).rejects.toBeInstanceOf(OfflineStorageUnavailableError);
    expect(w.woken).toBe(1);
    held.release();
    await write();
    expect(await store.get("u1", "r1")).not.toBeNull();
  });

  it("a quick open wakes nobody", async () => {
    const w = waker();
    const store = new IndexedDbFormDraftStore(new OfflineDatabaseHandle({ name: `test-offline-${++n}`, waker: w, wakeAfterMs: 1000 }));
    await store.change("u1", "r1", () => draft("u1", "r1", "2026-01-01T00:00:01.000Z"));
    await new Promise((r) => setTimeout(r, 20));
    expect(w.woken).toBe(0);
  });

  it("without IndexedDB (some private windows) every use fails with OfflineStorageUnavailableError", async () => {
    vi.stubGlobal("indexedDB", undefined);
    const store = new IndexedDbOutboxStore(new OfflineDatabaseHandle({ name: `test-offline-${++n}`, waker: waker() }));
    await expect(store.list("u1")).rejects.toBeInstanceOf(OfflineStorageUnavailableError);
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
