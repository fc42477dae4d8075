import { describe, expect, it } from "vitest";
import { DatasetRecord, ErrorCode, RepositoryError, type AnswerSyncRepository, type RecordResponse } from "@tessera/domain";
import { FakeAnswerServer, MemoryDrafts, MemoryOutbox } from "@tessera/domain/testing";
import { FIELDS, QUESTIONS, recordProps } from "../annotation/test-fixtures";
import { FallbackFormDraftStore, FallbackOutboxStore, OfflineStorageState, OfflineStorageUnavailableError } from "@tessera/infrastructure";
import { AnswerConflictError } from "./offline-answers-view-model";
import { ManualOfflineEnvironment, testOfflineAnswers } from "./test-environment";

const flush = async (n = 20) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setTimeout(r, 0));
};
function record(i: number, response: RecordResponse | null = null, sentiment = "positive"): DatasetRecord {
  const r = new DatasetRecord(recordProps(i, { response }), QUESTIONS, FIELDS, i);
  r.initialize();
  r.question("sentiment")?.answer.set(sentiment);
  return r;
}

/** Two tabs of one browser: a shared outbox, forms, lock and notices; each tab sends through its own `sync`. */
function twoTabs(sync1: AnswerSyncRepository, sync2 = sync1) {
  const shared = { env: new ManualOfflineEnvironment(), outbox: new MemoryOutbox(), drafts: new MemoryDrafts() };
  return { env: shared.env, tab1: testOfflineAnswers(sync1, shared).offline, tab2: testOfflineAnswers(sync2, shared).offline };
}

describe("OfflineAnswersViewModel", () => {
  it("while the server answers 503, answers wait (counted) and go out in order, each once, after the back-off", async () => {
    const server = new FakeAnswerServer("u1");
    const { offline, env } = testOfflineAnswers(server);
    server.failures = [503];
    const delivered = Array.from({ length: 5 }, (_, i) => offline.send(record(i + 1), "submitted"));
    await flush();
    expect(offline.waiting).toBe(5);
    expect(offline.retryAt).not.toBeNull();
    server.failures = [502];
    env.fireTimers();
    await flush();
    expect(offline.waiting).toBe(5);
    env.fireTimers();
    const responses = await Promise.all(delivered);
    expect(responses.map((r) => r.recordId)).toEqual(["r1", "r2", "r3", "r4", "r5"]);
    expect(server.calls.filter((c) => c.startsWith("create"))).toEqual([
      "create r1",
      "create r1",
      "create r1",
      "create r2",
      "create r3",
      "create r4",
      "create r5",
    ]);
    expect(server.responses.size).toBe(5);
    expect(offline.waiting).toBe(0);
  });

  it("waits as long as the server's Retry-After says (429 / 503), then the back-off again", async () => {
    const server = new FakeAnswerServer("u1");
    const { offline, env } = testOfflineAnswers(server);
    server.failures = [{ status: 429, retryAfterMs: 12_000 }, 503];
    const delivered = offline.send(record(1), "submitted");
    await flush();
    expect([...env.timers.values()].map((t) => t.ms)).toEqual([12_000]);
    env.fireTimers();
    await flush();
    expect([...env.timers.values()].map((t) => t.ms)).toEqual([2000]); // no Retry-After: the back-off of a second failure
    env.fireTimers();
    expect((await delivered).recordId).toBe("r1");
  });

  it("offline: nothing is attempted until the connection is back, then all is sent", async () => {
    const server = new FakeAnswerServer("u1");
    const { offline, env } = testOfflineAnswers(server);
    env.setOnline(false);
    server.failures = [undefined, undefined, undefined];
    const sent = Promise.all([offline.send(record(1), "draft"), offline.send(record(2), "discarded")]);
    await flush();
    expect(offline.waiting).toBe(2);
    server.failures = [];
    env.setOnline(true);
    expect((await sent).map((r) => r.status)).toEqual(["draft", "discarded"]);
  });

  it("two tabs of the same user: a shared outbox, one sender at a time, each answer written once", async () => {
    const server = new FakeAnswerServer("u1");
    const { env, tab1, tab2 } = twoTabs(server);
    env.setOnline(false);
    server.failures = Array(10).fill(undefined);
    void tab1.send(record(1), "submitted");
    void tab2.send(record(2), "submitted");
    await flush();
    expect(tab1.waiting).toBe(2); // each tab counts the whole outbox
    expect(tab2.waiting).toBe(2);
    server.failures = [];
    env.setOnline(true); // both tabs try at once
    await flush(40);
    expect(server.calls.filter((c) => c.startsWith("create"))).toEqual(["create r1", "create r2"]);
    expect(tab1.waiting + tab2.waiting).toBe(0);
  });

  it("an answer given in one tab and sent by another settles in the tab that gave it: its Submit resolves, or meets the conflict", async () => {
    const server = new FakeAnswerServer("u1");
    // tab 1's own requests fail (as under load, or a tab whose network is busy): tab 2 holds the send lock next and sends its answers
    const unavailable = async (): Promise<never> => {
      throw new RepositoryError(ErrorCode.ERROR_CREATING_RECORD_RESPONSE, 503);
    };
    const tab1Sync: AnswerSyncRepository = { create: unavailable, update: unavailable, current: (id) => server.current(id) };
    const { tab1, tab2 } = twoTabs(tab1Sync, server);
    const heard: string[] = [];
    tab1.onDelivered((recordId, _response, own) => heard.push(`tab1 ${recordId} ${own ? "own" : "other"}`));
    tab2.onDelivered((recordId, _response, own) => heard.push(`tab2 ${recordId} ${own ? "own" : "other"}`));

    const given = tab1.send(record(1), "submitted");
    await flush(40);
    expect(server.calls.filter((c) => c.startsWith("create"))).toEqual(["create r1"]); // sent by tab 2
    expect(await given).toMatchObject({ recordId: "r1", status: "submitted" });
    expect(heard.sort()).toEqual(["tab1 r1 own", "tab2 r1 other"]);
    expect(tab1.waiting + tab2.waiting).toBe(0);

    server.write("r2", { status: "submitted", values: { sentiment: "positive" } }); // another device answered first
    const error = await tab1.send(record(2, null, "negative"), "submitted").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnswerConflictError);
    await flush();
    expect(tab1.conflicts.map((e) => e.recordId)).toEqual(["r2"]); // shown in the tab that gave it, and in the other
    expect(tab2.conflicts.map((e) => e.recordId)).toEqual(["r2"]);
    expect(server.responses.get(tab1.conflicts[0]!.server!.id)?.values).toEqual({ sentiment: "positive" });
  });

  it("an unsent answer of one tab replaced by another tab's later answer for the record settles with it (the last word wins)", async () => {
    const server = new FakeAnswerServer("u1");
    const { env, tab1, tab2 } = twoTabs(server);
    env.setOnline(false);
    const first = tab1.send(record(1, null, "positive"), "draft");
    await flush();
    const last = tab2.send(record(1, null, "negative"), "submitted");
    await flush();
    expect(tab1.waiting).toBe(1);
    env.setOnline(true);
    const [a, b] = await Promise.all([first, last]);
    expect(a).toEqual(b);
    expect(b).toMatchObject({ recordId: "r1", status: "submitted" });
    expect(server.calls.filter((c) => c.startsWith("create"))).toEqual(["create r1"]);
  });

  it("a conflict from another tab: not overwritten; 'Keep mine' sends it over the newer one", async () => {
    const server = new FakeAnswerServer("u1");
    const saved = server.write("r1", { status: "draft", values: { sentiment: "neutral" } });
    const { offline } = testOfflineAnswers(server);
    const mine = record(1, saved, "negative");
    server.write("r1", { status: "submitted", values: { sentiment: "positive" } }); // the other tab
    const error = await offline.send(mine, "submitted").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnswerConflictError);
    expect(offline.conflicts).toHaveLength(1);
    expect(offline.conflicts[0]?.server?.values).toEqual({ sentiment: "positive" });
    expect(server.responses.get(saved.id)?.values).toEqual({ sentiment: "positive" });
    await offline.resolve(offline.conflicts[0]!, "mine");
    await flush();
    expect(server.responses.get(saved.id)).toMatchObject({ status: "submitted", values: { sentiment: "negative" } });
    expect(offline.conflicts).toEqual([]);
  });

  it("keeps forms per user, restores them, and tells which form holds restored work", async () => {
    const server = new FakeAnswerServer("u1");
    const drafts = new MemoryDrafts();
    const { offline } = testOfflineAnswers(server, { drafts });
    const typed = record(3);
    typed.question("comment")?.answer.set("half a thought");
    await offline.keep(typed);
    const again = new DatasetRecord(recordProps(3), QUESTIONS, FIELDS, 3);
    again.initialize();
    expect(await offline.restore(again)).toBe(true);
    expect(again.question("comment")?.answer.value).toBe("half a thought");
    expect(offline.holdsRestoredWork(again)).toBe(true);
    const otherUser = testOfflineAnswers(server, { drafts, userId: "u2" }).offline;
    const fresh = new DatasetRecord(recordProps(3), QUESTIONS, FIELDS, 3);
    fresh.initialize();
    expect(await otherUser.restore(fresh)).toBe(false);
  });

  it("sign-out: clears the user's stored answers when all is sent; asks first when some are not", async () => {
    const server = new FakeAnswerServer("u1");
    const { offline, env, outbox, drafts } = testOfflineAnswers(server);
    await offline.send(record(1), "submitted");
    let signedOut = 0;
    await offline.requestSignOut(() => {
      signedOut++;
    });
    expect(signedOut).toBe(1);

    await offline.setUser("u1");
    env.setOnline(false);
    server.failures = Array(5).fill(undefined);
    void offline.send(record(2), "submitted");
    const typed = record(3);
    await offline.keep(typed);
    await flush();
    await offline.requestSignOut(() => {
      signedOut++;
    });
    expect(signedOut).toBe(1);
    expect(offline.signOutPrompt).toEqual({ answers: 1, forms: 1 });
    offline.cancelSignOut();
    expect(await outbox.list("u1")).toHaveLength(1);
    await offline.requestSignOut(() => {
      signedOut++;
    });
    await offline.confirmSignOut();
    expect(signedOut).toBe(2);
    expect(await outbox.list("u1")).toEqual([]);
    expect(await drafts.list("u1")).toEqual([]);
  });

  it("says when the form's changes are on disk: 'keeping' until the latest change's write completed, 'failed' when it cannot be", async () => {
    /** A drafts store whose writes wait until released, and fail while `broken`. */
    class HeldDrafts extends MemoryDrafts {
      broken = false;
      private readonly held: Array<() => void> = [];
      override async change(...args: Parameters<MemoryDrafts["change"]>) {
        await new Promise<void>((release) => this.held.push(release));
        if (this.broken) throw new Error("QuotaExceededError");
        return super.change(...args);
      }
      release() {
        for (const r of this.held.splice(0)) r();
      }
    }
    const drafts = new HeldDrafts();
    const { offline } = testOfflineAnswers(new FakeAnswerServer("u1"), { drafts });
    await flush();
    expect(offline.formKept).toBe("kept");
    const r = record(1);
    void offline.keep(r);
    await flush(); // the first write is under way
    r.question("sentiment")?.answer.set("negative");
    void offline.keep(r); // waits behind it
    expect(offline.formKept).toBe("keeping");
    drafts.release();
    await flush();
    expect(offline.formKept).toBe("keeping"); // the first write is done, the latest change is not on disk yet
    await flush();
    drafts.release();
    await flush();
    expect(offline.formKept).toBe("kept");
    expect(JSON.parse((await drafts.get("u1", r.id))!.answers["sentiment"]!)).toBe("negative");
    drafts.broken = true;
    void offline.keep(r);
    await flush();
    drafts.release();
    await flush();
    expect(offline.formKept).toBe("failed");
    drafts.broken = false;
    void offline.keep(r);
    await flush();
    drafts.release();
    await flush();
    expect(offline.formKept).toBe("kept");
  });

  it("a browser that cannot keep answers on disk: the page says so, the form is 'not kept', and answers still reach the server", async () => {
    const broken = () => Promise.reject(new OfflineStorageUnavailableError("no IndexedDB"));
    const disk = { list: broken, change: broken, clear: broken, get: broken };
    const storage = new OfflineStorageState();
    const outbox = new FallbackOutboxStore(disk, storage);
    const drafts = new FallbackFormDraftStore(disk, storage);
    const server = new FakeAnswerServer("u1");
    const { offline } = testOfflineAnswers(server, { outbox, drafts, storage });
    await flush();
    expect(offline.storageUnavailable).toBe(true); // loading the user's outbox found out
    const r = record(1);
    await offline.keep(r);
    expect(offline.formKept).toBe("failed");
    expect((await offline.send(r, "submitted")).recordId).toBe("r1");
    expect(server.responses.size).toBe(1);
  });
});
