import { describe, expect, it } from "vitest";
import { GetDatasetCreationUseCase, HasDatasetResponsesUseCase } from "@tessera/domain";
import { createContainer } from "./container.js";
import { MemoryStorage, PRODUCT_STORAGE_KEY } from "./storage/local-storage.js";
import { json } from "./testing/fake-fetch.js";

function app(handler: (url: URL) => Response, hubUrl?: string) {
  const storage = new MemoryStorage();
  storage.setItem(PRODUCT_STORAGE_KEY, JSON.stringify({ "auth.token": "jwt" }));
  const urls: string[] = [];
  const fetchFn = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = input instanceof Request ? input : new Request(input, init);
    urls.push(request.url);
    return handler(new URL(request.url));
  }) as typeof fetch;
  return { c: createContainer({ storage, origin: "http://app.test", fetch: fetchFn, ...(hubUrl ? { hubUrl } : {}) }), urls };
}

const INFO = { dataset_info: { default: { features: { text: { _type: "Value", dtype: "string" } }, splits: { train: {} } } } };

describe("settings extras in the composition root", () => {
  it("reads the dataset viewer URL from GET /v1/hub/settings once and calls that viewer", async () => {
    const { c, urls } = app((url) =>
      url.pathname === "/api/v1/hub/settings"
        ? json({ datasets_server_url: "http://viewer.test" })
        : url.host === "viewer.test"
          ? json(INFO)
          : json({}, 404),
    );
    const uc = c.resolve(GetDatasetCreationUseCase);
    expect((await uc.execute("a/b")).selectedSubset.split).toBe("train");
    await uc.execute("a/b");
    expect(urls.filter((u) => u.endsWith("/hub/settings"))).toHaveLength(1);
    expect(urls.filter((u) => u.startsWith("http://viewer.test/info?dataset=a%2Fb"))).toHaveLength(2);
  });

  it("keeps an explicit hubUrl", async () => {
    const { c, urls } = app((url) => (url.host === "hub.test" ? json(INFO) : json({}, 404)), "http://hub.test");
    await c.resolve(GetDatasetCreationUseCase).execute("a/b");
    expect(urls).toEqual(["http://hub.test/info?dataset=a%2Fb"]);
  });

  it("counts responses over users and statuses", async () => {
    const users = {
      users: [{ username: "a", completed: { submitted: 0, discarded: 0, draft: 0 }, pending: { submitted: 0, discarded: 0, draft: 1 } }],
    };
    const { c, urls } = app((url) => (url.pathname.endsWith("/users/progress") ? json(users) : json({}, 404)));
    expect(await c.resolve(HasDatasetResponsesUseCase).execute("d1")).toBe(true);
    expect(urls[0]).toBe("http://app.test/api/v1/datasets/d1/users/progress");
    const empty = app(() => json({ users: [] }));
    expect(await empty.c.resolve(HasDatasetResponsesUseCase).execute("d1")).toBe(false);
  });
});
