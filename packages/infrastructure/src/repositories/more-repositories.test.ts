import { describe, expect, it } from "vitest";
import {
  CreateDatasetUseCase,
  DatasetCreation,
  ErrorCode,
  GetDatasetCreationUseCase,
  GetFirstRecordFromHubUseCase,
  GetJobStatusUseCase,
  TOKENS,
  UpdateDatasetSettingUseCase,
  type Notification,
  type WorkspaceRepository,
  LoadDatasetWithSettingsUseCase,
} from "@tessera/domain";
import { createContainer } from "../container.js";
import { MemoryStorage, PRODUCT_STORAGE_KEY } from "../storage/local-storage.js";
import { fakeFetch, json, type Handler } from "../testing/fake-fetch.js";

function app(handler: Handler) {
  const storage = new MemoryStorage();
  storage.setItem(PRODUCT_STORAGE_KEY, JSON.stringify({ "auth.token": "jwt" }));
  const { fn: fetchFn, calls } = fakeFetch(handler);
  const toasts: Notification[] = [];
  const delays: number[] = [];
  const c = createContainer({
    storage,
    origin: "http://app.test",
    fetch: fetchFn,
    hubUrl: "http://hub.test",
    notifications: { notify: (n) => toasts.push(n), clear: () => toasts.splice(0) },
    clock: {
      now: () => 0,
      delay: async (ms) => {
        delays.push(ms);
      },
    },
  });
  return { c, calls, toasts, delays };
}

describe("workspace, job and Hub repositories", () => {
  it.each([
    ["list", (r: WorkspaceRepository) => r.list(), ErrorCode.GET_WORKSPACES],
    ["create", (r: WorkspaceRepository) => r.create("x"), ErrorCode.CREATE_WORKSPACE],
    ["getById", (r: WorkspaceRepository) => r.getById("w"), ErrorCode.ERROR_FETCHING_WORKSPACE_INFO],
  ])("workspaces.%s throws its code", async (_n, run, code) => {
    const { c } = app(() => json({}, 500));
    await expect(run(c.resolve<WorkspaceRepository>(TOKENS.WorkspaceRepository))).rejects.toMatchObject({ code });
  });

  it("a failed job-status call is treated as failed", async () => {
    expect(
      await app(() => json({ id: "j", status: "queued" }))
        .c.resolve(GetJobStatusUseCase)
        .execute("j"),
    ).toBe("queued");
    expect(
      await app(() => json({ detail: "Job with id `j` not found" }, 404))
        .c.resolve(GetJobStatusUseCase)
        .execute("j"),
    ).toBe("failed");
  });

  it("reads dataset_info from the datasets server without credentials, and the first row for the preview", async () => {
    const { c, calls } = app((req) => {
      const url = new URL(req.url);
      if (url.pathname === "/info")
        return json({
          dataset_info: {
            plain_text: {
              features: { text: { _type: "Value", dtype: "string" }, label: { _type: "ClassLabel", names: ["neg", "pos"] } },
              splits: { train: {}, test: {} },
            },
          },
        });
      if (url.pathname === "/first-rows") return json({ rows: [{ row_idx: 0, row: { text: "great", label: 1 } }] });
      return json({}, 404);
    });
    const creation = await c.resolve(GetDatasetCreationUseCase).execute("stanfordnlp/imdb");
    expect(calls[0]!.url).toBe("http://hub.test/info?dataset=stanfordnlp%2Fimdb");
    expect(calls[0]!.headers.get("authorization")).toBeNull();
    expect(creation.selectedSubset.splits).toEqual(["train", "test"]);
    expect(creation.selectedSubset.questions.map((q) => q.name)).toEqual(["label"]);
    expect(await c.resolve(GetFirstRecordFromHubUseCase).execute(creation)).toEqual({ text: "great", label: 1 });
    expect(new URL(calls[1]!.url).searchParams.get("config")).toBe("plain_text");
  });

  it("an unknown repository gives ERROR_FETCHING_DATASET_INFO, and a failed first row an empty record", async () => {
    const { c, toasts } = app(() => json({ error: "not found" }, 404));
    await expect(c.resolve(GetDatasetCreationUseCase).execute("nobody/nothing")).rejects.toMatchObject({
      code: ErrorCode.ERROR_FETCHING_DATASET_INFO,
    });
    const empty = app(() => json({ dataset_info: {} }));
    await expect(empty.c.resolve(GetDatasetCreationUseCase).execute("a/b")).rejects.toMatchObject({
      code: ErrorCode.ERROR_FETCHING_DATASET_INFO,
    });
    const creation = DatasetCreation.fromInfo("a/b", [{ name: "default", splits: ["train"], features: {} }]);
    expect(await c.resolve(GetFirstRecordFromHubUseCase).execute(creation)).toEqual({});
    expect(toasts).toEqual([]); // public Hub calls raise no toasts
  });
});

describe("use cases through the composition root", () => {
  it("creates a dataset end to end and deletes it when publishing fails", async () => {
    const seen: string[] = [];
    let publishFails = true;
    const { c, delays, toasts } = app(async (req) => {
      const path = new URL(req.url).pathname.replace("/api/", "");
      seen.push(`${req.method} ${path}`);
      if (path === "v1/datasets" && req.method === "POST") return json({ id: "d9" }, 201);
      if (path.endsWith("/publish")) return publishFails ? json({ detail: "needs a required field" }, 422) : json({ id: "d9" });
      if (path.endsWith("/import")) return json({ id: "job", status: "queued" }, 202);
      if (path.endsWith("/progress")) return json({ total: 10, completed: 0, pending: 10 });
      if (req.method === "DELETE") return json({ id: "d9" });
      return json(
        { id: "x", name: "x", title: "x", required: true, settings: { type: "text" }, dataset_id: "d9", visible_for_annotators: true },
        201,
      );
    });
    const creation = DatasetCreation.fromInfo("org/ds", [
      { name: "default", splits: ["train"], features: { text: { _type: "Value", dtype: "string" } } },
    ]);
    creation.workspace = { id: "w1", name: "team" };
    expect(await c.resolve(CreateDatasetUseCase).execute(creation)).toBeNull();
    expect(seen.at(-1)).toBe("DELETE v1/datasets/d9");
    expect(toasts.map((t) => t.message)).toEqual(["needs a required field"]);
    publishFails = false;
    seen.length = 0;
    expect(await c.resolve(CreateDatasetUseCase).execute(creation)).toBe("d9");
    expect(seen).toEqual([
      "POST v1/datasets",
      "POST v1/datasets/d9/fields",
      "POST v1/datasets/d9/questions",
      "PUT v1/datasets/d9/publish",
      "POST v1/datasets/d9/import",
      "GET v1/datasets/d9/progress",
    ]);
    expect(delays).toEqual([3000]);
  });

  it("a failed distribution update shows the business message and reverts", async () => {
    const ds = {
      id: "d",
      name: "n",
      guidelines: "g",
      status: "ready",
      workspace_id: "w",
      allow_extra_metadata: false,
      distribution: { strategy: "overlap", min_submitted: 1 },
      metadata: null,
      inserted_at: "i",
      updated_at: "u",
      last_activity_at: "l",
    };
    const { c, toasts } = app((req) => {
      const path = new URL(req.url).pathname;
      if (req.method === "PATCH") return json({ code: "update_distribution_with_existing_responses", detail: "x" }, 422);
      if (path.endsWith("/workspaces/w")) return json({ id: "w", name: "team" });
      return json(ds);
    });
    const { dataset } = await c.resolve(LoadDatasetWithSettingsUseCase).execute("d", { isAdminOrOwner: false });
    dataset.distribution.minSubmitted = 2;
    expect(await c.resolve(UpdateDatasetSettingUseCase).execute(dataset, "distribution")).toBe(false);
    expect(dataset.distribution.minSubmitted).toBe(1);
    expect(toasts.map((t) => [t.type, t.message])).toEqual([
      ["danger", "Distribution settings can't be modified for a dataset containing user responses"],
    ]);
  });
});
