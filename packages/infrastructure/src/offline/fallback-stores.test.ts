import "fake-indexeddb/auto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { enqueueAnswer, type FormDraft } from "@tessera/domain";
import { IndexedDbFormDraftStore, IndexedDbOutboxStore, OfflineDatabaseHandle } from "./indexeddb-stores.js";
import { FallbackFormDraftStore, FallbackOutboxStore, OfflineStorageState } from "./fallback-stores.js";

let n = 0;
const quiet = { listen: () => undefined, wake: () => undefined };
const handle = () => new OfflineDatabaseHandle({ name: `fallback-test-${++n}`, waker: quiet });
const answer = (recordId: string) => ({
  userId: "u1",
  datasetId: "d1",
  recordId,
  status: "submitted" as const,
  values: { label: "positive" },
  base: null,
  queuedAt: "2026-01-01T00:00:00.000Z",
});
const form: FormDraft = {
  userId: "u1",
  datasetId: "d1",
  recordId: "r1",
  answers: { text: '"typed"' },
  base: null,
  savedAt: "2026-01-01T00:00:01.000Z",
};

describe("offline stores that fall back to this page's memory", () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it("use IndexedDB while it works, and say nothing", async () => {
    const state = new OfflineStorageState();
    const h = handle();
    const outbox = new FallbackOutboxStore(new IndexedDbOutboxStore(h), state);
    await outbox.change("u1", (es) => enqueueAnswer(es, answer("r1")));
    expect(await new IndexedDbOutboxStore(h).list("u1")).toHaveLength(1); // on disk
    expect(state.unavailable).toBe(false);
  });

  it("without IndexedDB (a private window): the outbox and the forms work in memory, and the page is told once", async () => {
    vi.stubGlobal("indexedDB", undefined);
    const state = new OfflineStorageState();
    const told: boolean[] = [];
    state.onChange(() => told.push(state.unavailable));
    const h = handle();
    const outbox = new FallbackOutboxStore(new IndexedDbOutboxStore(h), state);
    const drafts = new FallbackFormDraftStore(new IndexedDbFormDraftStore(h), state);
    await outbox.change("u1", (es) => enqueueAnswer(es, answer("r1")));
    await outbox.change("u1", (es) => enqueueAnswer(es, answer("r2")));
    expect((await outbox.list("u1")).map((e) => e.recordId)).toEqual(["r1", "r2"]);
    await drafts.change("u1", "r1", () => form);
    expect(await drafts.get("u1", "r1")).toEqual(form);
    expect(told).toEqual([true]);
  });

  it("a failure of the storage itself (quota) falls back too; an error of the rules inside a change does not", async () => {
    const state = new OfflineStorageState();
    const failing = new IndexedDbFormDraftStore(handle());
    failing.change = () => Promise.reject(new DOMException("full", "QuotaExceededError"));
    const drafts = new FallbackFormDraftStore(failing, state);
    await drafts.change("u1", "r1", () => form);
    expect(state.unavailable).toBe(true);
    expect(await drafts.get("u1", "r1")).toEqual(form);

    const other = new OfflineStorageState();
    const outbox = new FallbackOutboxStore(new IndexedDbOutboxStore(handle()), other);
    await expect(
      outbox.change("u1", () => {
        throw new Error("a rule refused");
      }),
    ).rejects.toThrow("a rule refused");
    expect(other.unavailable).toBe(false);
  });
});
