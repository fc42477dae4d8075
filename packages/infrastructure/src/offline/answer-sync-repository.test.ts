import "fake-indexeddb/auto";
import { describe, expect, it } from "vitest";
import {
  OFFLINE_TOKENS,
  RepositoryError,
  RetryLaterError,
  SendNextAnswerUseCase,
  QueueAnswerUseCase,
  type AnswerSyncRepository,
} from "@tessera/domain";
import { createContainer } from "../container.js";
import { MemoryStorage } from "../storage/local-storage.js";
import { fakeFetch, json } from "../testing/fake-fetch.js";
import { retryAfterMs } from "./answer-sync-repository.js";

const wire = {
  id: "resp-1",
  status: "submitted",
  values: { label: { value: "positive" } },
  record_id: "r1",
  user_id: "u1",
  updated_at: "2026-01-01T00:00:01",
};

describe("HttpAnswerSyncRepository", () => {
  it("creates with POST, updates with PUT and If-Match, reads the user's own response, and raises no toast on failure", async () => {
    const toasts: string[] = [];
    const fetch = fakeFetch((request) => {
      const url = new URL(request.url);
      if (request.method === "POST") return json(wire, 201);
      if (request.method === "PUT")
        return request.headers.get("if-match") === '"2026-01-01T00:00:01"' ? json(wire) : json({ detail: "changed" }, 412);
      if (url.pathname === "/api/v1/records/r1") return json({ id: "r1", responses: [{ ...wire, id: "other", user_id: "u2" }, wire] });
      return json({ detail: "Service Unavailable" }, 503);
    });
    const c = createContainer({
      storage: new MemoryStorage(),
      origin: "http://app.test",
      fetch: fetch.fn,
      offlineDatabase: "sync-test",
      notifications: {
        notify: (n) => {
          toasts.push(n.message);
        },
        clear: () => {},
      },
    });
    const sync = c.resolve<AnswerSyncRepository>(OFFLINE_TOKENS.AnswerSyncRepository);
    expect(await sync.create("r1", { status: "submitted", values: { label: "positive" } })).toMatchObject({
      id: "resp-1",
      values: { label: "positive" },
    });
    expect(JSON.parse(await fetch.calls[0]!.text())).toEqual({ status: "submitted", values: { label: { value: "positive" } } });
    expect((await sync.update("resp-1", { status: "draft", values: {} }, "2026-01-01T00:00:01")).id).toBe("resp-1");
    const stale = await sync.update("resp-1", { status: "draft", values: {} }, "2026-01-01T00:00:00").catch((e: unknown) => e);
    expect(stale).toBeInstanceOf(RepositoryError);
    expect((stale as RepositoryError).status).toBe(412);
    expect(await sync.current("r1", "u1")).toMatchObject({ id: "resp-1" });
    expect(await sync.current("r1", "u3")).toBeNull();
    expect(((await sync.current("r2", "u1").catch((e: unknown) => e)) as RepositoryError).status).toBe(503);
    expect(toasts).toEqual([]);
    // the use cases are bound to these adapters
    expect(c.resolve(SendNextAnswerUseCase)).toBeInstanceOf(SendNextAnswerUseCase);
    expect(c.resolve(QueueAnswerUseCase)).toBeInstanceOf(QueueAnswerUseCase);
  });

  it("a 503 or 429 with Retry-After fails with RetryLaterError carrying the wait (seconds or an HTTP date)", async () => {
    const answers: Response[] = [
      new Response(JSON.stringify({ detail: "busy" }), {
        status: 503,
        headers: { "content-type": "application/json", "retry-after": "7" },
      }),
      new Response(JSON.stringify({ detail: "slow down" }), {
        status: 429,
        headers: { "retry-after": new Date(Date.now() + 60_000).toUTCString() },
      }),
      json({ detail: "down" }, 503),
    ];
    const fetch = fakeFetch(() => answers.shift()!);
    const c = createContainer({ storage: new MemoryStorage(), origin: "http://app.test", fetch: fetch.fn, offlineDatabase: "sync-test-2" });
    const sync = c.resolve<AnswerSyncRepository>(OFFLINE_TOKENS.AnswerSyncRepository);
    const payload = { status: "submitted" as const, values: { label: "positive" } };
    const busy = await sync.create("r1", payload).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(RetryLaterError);
    expect(busy).toMatchObject({ status: 503, retryAfterMs: 7000 });
    const slow = (await sync.update("resp-1", payload, "2026-01-01T00:00:01").catch((e: unknown) => e)) as RetryLaterError;
    expect(slow.status).toBe(429);
    expect(slow.retryAfterMs).toBeGreaterThan(55_000);
    expect(slow.retryAfterMs).toBeLessThanOrEqual(60_000);
    const down = await sync.create("r1", payload).catch((e: unknown) => e);
    expect(down).toBeInstanceOf(RepositoryError);
    expect(down).not.toBeInstanceOf(RetryLaterError);
  });

  it("reads Retry-After as delay-seconds or an HTTP date, and ignores what it cannot read", () => {
    const now = Date.parse("2026-01-01T00:00:00Z");
    expect(retryAfterMs("120", now)).toBe(120_000);
    expect(retryAfterMs("Thu, 01 Jan 2026 00:00:30 GMT", now)).toBe(30_000);
    expect(retryAfterMs("Wed, 31 Dec 2025 23:00:00 GMT", now)).toBe(0);
    expect(retryAfterMs("soon", now)).toBeUndefined();
    expect(retryAfterMs(null, now)).toBeUndefined();
    expect(retryAfterMs("-5", now)).toBeUndefined();
  });
});
