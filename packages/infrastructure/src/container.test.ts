import { describe, expect, it } from "vitest";
import { ErrorCode, ListDatasetsUseCase, LoadUserUseCase, SignInUseCase } from "@tessera/domain";
import { createContainer } from "./container.js";
import { MemoryStorage, PRODUCT_STORAGE_KEY } from "./storage/local-storage.js";
import { fakeFetch, json } from "./testing/fake-fetch.js";

const me = { id: "u1", username: "owner", first_name: "Owner", last_name: null, role: "owner", api_key: "key" };

describe("composition root", () => {
  it("signs in with a form-encoded body, stores the token under auth. and sends it afterwards", async () => {
    const storage = new MemoryStorage();
    const http = fakeFetch(async (req) => {
      const path = new URL(req.url).pathname;
      if (path === "/api/v1/token") return json({ access_token: "jwt-1", token_type: "bearer" });
      if (path === "/api/v1/me") return req.headers.get("authorization") === "Bearer jwt-1" ? json(me) : json({}, 401);
      return json({}, 404);
    });
    const c = createContainer({ storage, origin: "http://app.test", fetch: http.fn });
    const user = await c.resolve(SignInUseCase).execute("owner", "secret");
    expect(user.username).toBe("owner");
    const tokenCall = http.calls[0]!;
    expect(tokenCall.headers.get("content-type")).toContain("application/x-www-form-urlencoded");
    expect(tokenCall.headers.get("authorization")).toBeNull();
    expect(await tokenCall.text()).toBe("username=owner&password=secret");
    expect(JSON.parse(storage.getItem(PRODUCT_STORAGE_KEY)!)).toEqual({ "auth.token": "jwt-1" });
  });

  it("maps a failed sign-in to ERROR_SIGNING_IN with the status", async () => {
    const http = fakeFetch(async () => json({ detail: "nope" }, 401));
    const c = createContainer({ storage: new MemoryStorage(), origin: "http://app.test", fetch: http.fn });
    await expect(c.resolve(SignInUseCase).execute("x", "y")).rejects.toMatchObject({ code: ErrorCode.ERROR_SIGNING_IN, status: 401 });
  });

  it("logs out when /me answers 401", async () => {
    const storage = new MemoryStorage();
    storage.setItem(PRODUCT_STORAGE_KEY, JSON.stringify({ "auth.token": "expired" }));
    const c = createContainer({ storage, origin: "http://app.test", fetch: fakeFetch(async () => json({}, 401)).fn });
    expect(await c.resolve(LoadUserUseCase).execute()).toBeNull();
    expect(JSON.parse(storage.getItem(PRODUCT_STORAGE_KEY)!)).toEqual({});
  });

  it("lists datasets with their workspace names, or throws ERROR_FETCHING_FEEDBACK_DATASETS", async () => {
    const ds = {
      id: "d1",
      name: "imdb",
      guidelines: null,
      status: "ready",
      workspace_id: "w1",
      allow_extra_metadata: true,
      distribution: { strategy: "overlap", min_submitted: 1 },
      metadata: null,
      inserted_at: "2026-01-01T00:00:00",
      updated_at: "2026-01-02T00:00:00",
      last_activity_at: "2026-01-02T00:00:00",
    };
    const ok = fakeFetch(async (req) =>
      new URL(req.url).pathname.endsWith("/me/datasets") ? json({ items: [ds] }) : json({ items: [{ id: "w1", name: "team" }] }),
    );
    const list = await createContainer({ storage: new MemoryStorage(), origin: "http://app.test", fetch: ok.fn })
      .resolve(ListDatasetsUseCase)
      .execute();
    expect(list.map((d) => [d.name, d.workspaceName, d.distribution.minSubmitted])).toEqual([["imdb", "team", 1]]);
    const failing = fakeFetch(async () => json({}, 500));
    await expect(
      createContainer({ storage: new MemoryStorage(), origin: "http://app.test", fetch: failing.fn })
        .resolve(ListDatasetsUseCase)
        .execute(),
    ).rejects.toMatchObject({ code: ErrorCode.ERROR_FETCHING_FEEDBACK_DATASETS });
  });
});

describe("lifetimes", () => {
  it("resolves the same use case instance within one container and different ones across containers", () => {
    const a = createContainer({ storage: new MemoryStorage(), origin: "http://app.test" });
    const b = createContainer({ storage: new MemoryStorage(), origin: "http://app.test" });
    expect(a.resolve(SignInUseCase)).toBe(a.resolve(SignInUseCase));
    expect(a.resolve(SignInUseCase)).not.toBe(b.resolve(SignInUseCase));
  });
});
