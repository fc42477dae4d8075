import { describe, expect, it } from "vitest";
import type { Notification, NotificationPort } from "@tessera/domain";
import { createHttpClient } from "./http-client.js";
import { HttpCache, cacheSecondsFor, invalidationsFor } from "./cache.js";
import { normalizeError } from "./failed-request-handler.js";
import { json } from "../testing/fake-fetch.js";

const tokens = (t: string | null = "jwt") => ({ get: () => t, set: () => {}, clear: () => {} });

function fakeNotifications() {
  const log: Array<string> = [];
  const shown: Notification[] = [];
  const port: NotificationPort = {
    notify: (n) => {
      shown.push(n);
      log.push(`notify:${n.message}`);
    },
    clear: () => {
      log.push("clear");
    },
  };
  return { port, log, shown };
}

function client(handler: (r: Request) => Response | Promise<Response>, extra: { now?: () => number; basePath?: string } = {}) {
  const calls: Request[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    calls.push(request);
    return handler(request);
  }) as typeof fetch;
  const n = fakeNotifications();
  const http = createHttpClient(tokens(), {
    origin: "http://app.test",
    fetch: fetchFn,
    notifications: n.port,
    cache: new HttpCache(extra.now),
    ...(extra.basePath ? { basePath: extra.basePath } : {}),
  });
  return { http, calls, n };
}

describe("failed-request handler (spec section 8)", () => {
  it.each([
    [401, "Could not validate credentials"],
    [404, "Could not find the requested resource"],
    [429, "Please wait a few seconds before trying again"],
    [500, "An error occurred, please try again later"],
  ])("clears the toasts, shows the %i status message as danger and re-throws", async (status, text) => {
    const { http, n } = client(() => json({}, status));
    await expect(http.get("v1/me").json()).rejects.toMatchObject({ name: "HTTPError" });
    expect(n.log).toEqual(["clear", `notify:${text}`]);
    expect(n.shown[0]).toMatchObject({ type: "danger", key: `validations.http.${status}.message` });
  });

  it("then the business-code message, which wins over the detail", async () => {
    const { http, n } = client(() => json({ code: "missing_vector", detail: "raw" }, 422));
    await expect(http.post("v1/x").json()).rejects.toThrow();
    expect(n.log).toEqual(["clear", "notify:Vector not found for the selected record"]);
    const second = client(() => json({ code: "update_distribution_with_existing_responses", detail: "raw" }, 500));
    await expect(second.http.patch("v1/datasets/d").json()).rejects.toThrow();
    expect(second.n.log).toEqual([
      "clear",
      "notify:An error occurred, please try again later",
      "notify:Distribution settings can't be modified for a dataset containing user responses",
    ]);
  });

  it("otherwise a string detail is shown as is; object details are not", async () => {
    const { http, n } = client(() => json({ detail: "Dataset name already exists" }, 409));
    await expect(http.post("v1/datasets").json()).rejects.toThrow();
    expect(n.log).toEqual(["clear", "notify:Dataset name already exists"]);
    const obj = client(() => json({ detail: { code: "x" } }, 422));
    await expect(obj.http.post("v1/datasets").json()).rejects.toThrow();
    expect(obj.n.log).toEqual(["clear"]);
  });

  it("normalizes errors to a message and a status code (default 500)", () => {
    expect(normalizeError(new Error("x"))).toEqual({ message: "x", statusCode: 500 });
    expect(normalizeError({ message: "m", response: { status: 404 } })).toEqual({ message: "m", statusCode: 404 });
    expect(normalizeError({ message: "m", statusCode: 403 })).toEqual({ message: "m", statusCode: 403 });
    expect(normalizeError("plain")).toEqual({ message: "plain", statusCode: 500 });
  });
});

describe("HTTP client", () => {
  it("uses a configurable base path, sends Authorization except on public calls, and URL-encodes queries", async () => {
    const { http, calls } = client(() => json({}), { basePath: "/custom/" });
    await http
      .get("v1/me/datasets/x", {
        searchParams: new URLSearchParams([
          ["q", "a b&c"],
          ["include", "responses"],
          ["include", "suggestions"],
        ]),
      })
      .json();
    await http.get("v1/settings").json();
    await http.get("v1/oauth2/providers").json();
    expect(calls[0]!.url).toBe("http://app.test/custom/v1/me/datasets/x?q=a+b%26c&include=responses&include=suggestions");
    expect(calls[0]!.headers.get("authorization")).toBe("Bearer jwt");
    expect(calls[1]!.headers.get("authorization")).toBeNull();
    expect(calls[2]!.headers.get("authorization")).toBeNull();
  });

  it("caches datasets for 600 s and invalidates dataset and progress after a PATCH", async () => {
    let now = 0;
    let n = 0;
    const { http, calls } = client((req) => json({ n: ++n, method: req.method }), { now: () => now });
    expect(await http.get("v1/datasets/d").json()).toEqual({ n: 1, method: "GET" });
    now = 599_000;
    expect(await http.get("v1/datasets/d").json()).toEqual({ n: 1, method: "GET" });
    expect(await http.get("v1/datasets/d/progress").json()).toEqual({ n: 2, method: "GET" });
    now = 600_000;
    expect(await http.get("v1/datasets/d").json()).toEqual({ n: 3, method: "GET" });
    await http.patch("v1/datasets/d", { json: {} }).json();
    expect(await http.get("v1/datasets/d").json()).toEqual({ n: 5, method: "GET" });
    expect(await http.get("v1/datasets/d/progress").json()).toEqual({ n: 6, method: "GET" });
    expect(calls).toHaveLength(6);
  });

  it("uses the medium and default presets, does not cache failures or uncached paths, and response changes clear progress and metrics", async () => {
    let now = 0;
    let n = 0;
    const { http } = client((req) => (new URL(req.url).pathname.endsWith("/fail") ? json({}, 500) : json({ n: ++n })), { now: () => now });
    await http.get("v1/datasets/d/questions").json();
    now = 2_999;
    expect(await http.get("v1/datasets/d/questions").json()).toEqual({ n: 1 });
    now = 3_000;
    expect(await http.get("v1/datasets/d/questions").json()).toEqual({ n: 2 });
    expect(await http.get("v1/me").json()).toEqual({ n: 3 });
    expect(await http.get("v1/me").json()).toEqual({ n: 4 });
    await http.get("v1/me/datasets/d/metrics").json();
    await http.post("v1/records/r/responses", { json: {} }).json();
    expect(await http.get("v1/me/datasets/d/metrics").json()).toEqual({ n: 7 });
    expect(cacheSecondsFor("v1/settings")).toBe(120);
    expect(cacheSecondsFor("v1/datasets/d/progress")).toBe(600);
    expect(cacheSecondsFor("v1/me")).toBeNull();
  });

  it("lists the invalidations of each change", () => {
    const stale = (method: string, path: string, cached: string) => invalidationsFor(method, path).some((p) => p.test(cached));
    expect(invalidationsFor("GET", "v1/datasets/d")).toEqual([]);
    expect(stale("PUT", "v1/datasets/d/publish", "v1/datasets/d")).toBe(true);
    expect(stale("PUT", "v1/datasets/d/publish", "v1/datasets/other")).toBe(false);
    expect(stale("PATCH", "v1/questions/q", "v1/datasets/d/questions")).toBe(true);
    expect(stale("PATCH", "v1/fields/f", "v1/datasets/d/fields")).toBe(true);
    expect(stale("PATCH", "v1/vectors-settings/v", "v1/datasets/d/vectors-settings")).toBe(true);
    expect(stale("PATCH", "v1/metadata-properties/m", "v1/me/datasets/d/metadata-properties")).toBe(true);
    expect(stale("POST", "v1/workspaces", "v1/workspaces/w")).toBe(true);
    expect(stale("POST", "v1/me/responses/bulk", "v1/datasets/d/progress")).toBe(true);
    const cache = new HttpCache(() => 0);
    expect(cache.size).toBe(0);
    cache.clear();
  });
});
