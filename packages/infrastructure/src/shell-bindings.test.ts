import { describe, expect, it } from "vitest";
import { ErrorCode, GetEnvironmentUseCase, ListMyWorkspacesUseCase, GetDatasetProgressUseCase } from "@tessera/domain";
import { createContainer } from "./container.js";
import { MemoryStorage } from "./storage/local-storage.js";
import { json } from "./testing/fake-fetch.js";

const make = (handler: (path: string) => Response) =>
  createContainer({
    storage: new MemoryStorage(),
    origin: "http://app.test",
    fetch: (async (input: RequestInfo | URL) =>
      handler(new URL(input instanceof Request ? input.url : String(input)).pathname)) as typeof fetch,
  });

describe("shell bindings", () => {
  it("lists my workspaces and maps failures to ERROR_FETCHING_WORKSPACES", async () => {
    const ok = make((p) =>
      p === "/api/v1/me/workspaces" ? json({ items: [{ id: "w", name: "team", inserted_at: "x" }] }) : json({}, 404),
    );
    expect(await ok.resolve(ListMyWorkspacesUseCase).execute()).toEqual([{ id: "w", name: "team" }]);
    await expect(
      make(() => json({}, 500))
        .resolve(ListMyWorkspacesUseCase)
        .execute(),
    ).rejects.toMatchObject({ code: ErrorCode.ERROR_FETCHING_WORKSPACES });
  });

  it("reads the environment from /v1/settings", async () => {
    const c = make(() =>
      json({
        argilla: { show_huggingface_space_persistent_storage_warning: true },
        huggingface: {
          space_id: "me/space",
          space_title: "Space",
          space_subdomain: "me-space",
          space_host: "me-space.hf.space",
          space_repo_name: "space",
          space_author_name: "me",
          space_persistent_storage_enabled: false,
        },
      }),
    );
    const env = await c.resolve(GetEnvironmentUseCase).execute();
    expect(env.showPersistentStorageWarning).toBe(true);
    expect(env.hostedSpace?.id).toBe("me/space");
    const plain = await make(() => json({ argilla: { show_huggingface_space_persistent_storage_warning: null }, huggingface: null }))
      .resolve(GetEnvironmentUseCase)
      .execute();
    expect(plain).toEqual({ hostedSpace: null, showPersistentStorageWarning: false });
  });

  it("gets dataset progress", async () => {
    const c = make((p) =>
      p === "/api/v1/datasets/d%201/progress" || p === "/api/v1/datasets/d 1/progress"
        ? json({ total: 10, completed: 5, pending: 5 })
        : json({}, 404),
    );
    expect((await c.resolve(GetDatasetProgressUseCase).execute("d 1")).percentCompleted).toBe(50);
  });
});
