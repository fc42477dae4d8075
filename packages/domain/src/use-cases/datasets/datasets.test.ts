import { describe, expect, it, vi } from "vitest";
import { CreateDatasetUseCase } from "./create-dataset.js";
import { DeleteDatasetUseCase } from "./delete-dataset.js";
import { GetDatasetMetricsUseCase } from "./get-dataset-metrics.js";
import { GetJobStatusUseCase } from "./get-job-status.js";
import { GetMetadataMetricsUseCase } from "./get-metadata-metrics.js";
import { GetWorkspacesUseCase } from "./get-workspaces.js";
import { GetDatasetCreationUseCase } from "./get-dataset-creation.js";
import { GetFirstRecordFromHubUseCase } from "./get-first-record-from-hub.js";
import { LoadDatasetWithSettingsUseCase } from "./load-dataset-with-settings.js";
import { DatasetCreation } from "../../entities/hub.js";
import { Dataset } from "../../entities/dataset.js";
import { DatasetMetrics } from "../../entities/metrics.js";
import { Progress } from "../../entities/progress.js";
import { MetadataProperty } from "../../entities/metadata.js";
import { FIELDS, QUESTIONS } from "../../testing/fixtures.js";
import type { DatasetManagementRepository } from "../../ports/dataset-repository.js";
import type { HubRepository } from "../../ports/more-ports.js";

const FEATURES = {
  id: { _type: "Value", dtype: "string" },
  text: { _type: "Value", dtype: "string" },
  label: { _type: "ClassLabel", names: ["neg", "pos"] },
  score: { _type: "Value", dtype: "float32" },
};

function creation(workspace: { id?: string; name: string } | null = { id: "w1", name: "team" }) {
  const c = DatasetCreation.fromInfo("stanfordnlp/imdb", [{ name: "plain_text", splits: ["train", "test"], features: FEATURES }]);
  c.workspace = workspace;
  return c;
}

function fakes(progressTotals: number[] = [0, 5, 12]) {
  const log: string[] = [];
  const step =
    (name: string) =>
    async (..._args: unknown[]) => {
      log.push(name);
      return undefined as never;
    };
  const datasets = {
    create: vi.fn(async () => {
      log.push("dataset");
      return "new-id";
    }),
    publish: vi.fn(step("publish")),
    import: vi.fn(async () => {
      log.push("import");
      return "job-1";
    }),
    delete: vi.fn(step("delete")),
  } as { [k: string]: ReturnType<typeof vi.fn> };
  let poll = 0;
  const progress = {
    getProgress: vi.fn(async () => {
      log.push("progress");
      const t = progressTotals[Math.min(poll++, progressTotals.length - 1)] ?? 0;
      return new Progress(t, 0, t);
    }),
  };
  const workspaces = {
    list: vi.fn(),
    getById: vi.fn(),
    create: vi.fn(async (name: string) => {
      log.push(`workspace:${name}`);
      return { id: "w-new", name };
    }),
  };
  const fields = {
    list: vi.fn(),
    update: vi.fn(),
    create: vi.fn(async (_d: string, f: { name: string }) => {
      log.push(`field:${f.name}`);
      return FIELDS[0]!;
    }),
  };
  const questions = {
    list: vi.fn(),
    update: vi.fn(),
    create: vi.fn(async (_d: string, q: { name: string }) => {
      log.push(`question:${q.name}`);
      return QUESTIONS.label;
    }),
  };
  const metadata = {
    list: vi.fn(),
    update: vi.fn(),
    getMetrics: vi.fn(),
    create: vi.fn(async (_d: string, m: { name: string }) => {
      log.push(`metadata:${m.name}`);
      return { id: "m", name: m.name, title: m.name, settings: { type: "float" as const }, visibleForAnnotators: true, datasetId: "d" };
    }),
  };
  const delays: number[] = [];
  const clock = {
    now: () => 0,
    delay: async (ms: number) => {
      delays.push(ms);
    },
  };
  const uc = new CreateDatasetUseCase(
    datasets as unknown as DatasetManagementRepository,
    progress,
    workspaces,
    fields,
    questions,
    metadata,
    clock,
  );
  return { uc, log, delays, datasets, workspaces, fields, questions, progress };
}

describe("CreateDatasetUseCase (spec section 4 creation flow)", () => {
  it("creates the dataset, its settings, publishes, imports and polls until 10 records", async () => {
    const f = fakes();
    expect(await f.uc.execute(creation())).toBe("new-id");
    expect(f.log).toEqual([
      "dataset",
      "field:id",
      "field:text",
      "question:label",
      "metadata:score",
      "publish",
      "import",
      "progress",
      "progress",
      "progress",
    ]);
    expect(f.delays).toEqual([3000, 3000, 3000]);
    expect(f.datasets.create).toHaveBeenCalledWith({
      name: "imdb",
      workspaceId: "w1",
      metadata: {
        repoId: "stanfordnlp/imdb",
        subset: "plain_text",
        split: "train",
        mapping: {
          fields: [
            { source: "id", target: "id" },
            { source: "text", target: "text" },
          ],
          metadata: [{ source: "score", target: "score" }],
          suggestions: [{ source: "label", target: "label" }],
          external_id: "id",
        },
      },
    });
    expect(f.datasets.import).toHaveBeenCalledWith(
      "new-id",
      expect.objectContaining({ name: "stanfordnlp/imdb", subset: "plain_text", split: "train" }),
    );
    expect(f.questions.create).toHaveBeenCalledWith("new-id", {
      name: "label",
      title: "label",
      required: true,
      settings: {
        type: "label_selection",
        options: [
          { value: "neg", text: "neg" },
          { value: "pos", text: "pos" },
        ],
      },
    });
  });

  it("creates the workspace first when it has no id, and polls at most 10 times", async () => {
    const f = fakes([0]);
    expect(await f.uc.execute(creation({ name: "fresh" }))).toBe("new-id");
    expect(f.log[0]).toBe("workspace:fresh");
    expect(f.datasets.create).toHaveBeenCalledWith(expect.objectContaining({ workspaceId: "w-new" }));
    expect(f.progress.getProgress).toHaveBeenCalledTimes(10);
    expect(f.delays).toHaveLength(10);
  });

  it.each(["publish", "import"])("deletes the dataset and returns null when %s fails", async (step) => {
    const f = fakes();
    f.datasets[step]!.mockRejectedValueOnce(new Error("boom"));
    expect(await f.uc.execute(creation())).toBeNull();
    expect(f.datasets.delete).toHaveBeenCalledWith("new-id");
  });

  it("deletes on a failing field, question, metadata or progress call", async () => {
    for (const key of ["fields", "questions"] as const) {
      const f = fakes();
      f[key].create.mockRejectedValueOnce(new Error("x"));
      expect(await f.uc.execute(creation())).toBeNull();
      expect(f.log.at(-1)).toBe("delete");
    }
    const f = fakes();
    f.progress.getProgress.mockRejectedValueOnce(new Error("x"));
    expect(await f.uc.execute(creation())).toBeNull();
    expect(f.datasets.delete).toHaveBeenCalled();
  });

  it("returns null without deleting when nothing was created", async () => {
    const f = fakes();
    f.datasets.create!.mockRejectedValueOnce(new Error("409"));
    expect(await f.uc.execute(creation())).toBeNull();
    expect(f.datasets.delete).not.toHaveBeenCalled();
    expect(await f.uc.execute(creation(null))).toBeNull();
  });
});

describe("dataset use cases", () => {
  it("deletes, loads metrics, metadata metrics, workspaces and job status (a failed call is failed)", async () => {
    const repo = {
      delete: vi.fn(async () => undefined),
      getMetrics: vi.fn(async () => new DatasetMetrics(10, 3, 1, 1, 5)),
    } as unknown as DatasetManagementRepository;
    await new DeleteDatasetUseCase(repo).execute("d1");
    expect(repo.delete).toHaveBeenCalledWith("d1");
    const m = await new GetDatasetMetricsUseCase(repo).execute("d1");
    expect([m.responded, m.progress, m.percentSubmitted, m.percentDiscarded, m.percentDraft, m.percentPending, m.hasMetrics]).toEqual([
      5,
      50,
      30,
      10,
      10,
      50,
      true,
    ]);
    expect(new DatasetMetrics(3, 1, 0, 0, 2).progress).toBe(33.33);
    const property = new MetadataProperty({
      id: "m",
      name: "a",
      title: "a",
      settings: { type: "integer" },
      visibleForAnnotators: true,
      datasetId: "d",
    });
    const metrics = { type: "integer" as const, min: 1, max: 9 };
    await new GetMetadataMetricsUseCase({ getMetrics: async () => metrics } as never).execute(property);
    expect(property.metrics).toEqual(metrics);
    expect(
      await new GetWorkspacesUseCase({
        list: async () => [
          { id: "2", name: "b" },
          { id: "1", name: "a" },
        ],
      } as never).execute(),
    ).toEqual([
      { id: "1", name: "a" },
      { id: "2", name: "b" },
    ]);
    expect(await new GetJobStatusUseCase({ get: async () => ({ id: "j", status: "started" }) }).execute("j")).toBe("started");
    expect(
      await new GetJobStatusUseCase({
        get: async () => {
          throw new Error("404");
        },
      }).execute("j"),
    ).toBe("failed");
  });

  it("admins load the full settings; annotators load what annotation reads (visible metadata, vectors), failures left empty", async () => {
    const dataset = new Dataset({
      id: "d1",
      name: "n",
      guidelines: null,
      status: "ready",
      workspaceId: "w",
      workspaceName: "ws",
      allowExtraMetadata: false,
      distribution: { strategy: "overlap", minSubmitted: 1 },
      metadata: null,
      createdAt: "",
      updatedAt: "",
      lastActivityAt: "",
    });
    const meta = (name: string, visibleForAnnotators: boolean) => ({
      id: name,
      name,
      title: name,
      settings: { type: "terms" as const, values: ["a"] },
      visibleForAnnotators,
      datasetId: "d1",
    });
    const list = vi.fn(async () => [meta("genre", true), meta("secret", false)]);
    const vectors = { list: vi.fn(async () => [{ id: "v", name: "v", title: "V", dimensions: 2, datasetId: "d1" }]) };
    const uc = new LoadDatasetWithSettingsUseCase(
      { getById: async () => dataset } as unknown as DatasetManagementRepository,
      { list: async () => [QUESTIONS.label] } as never,
      { list: async () => FIELDS } as never,
      vectors as never,
      { list } as never,
    );
    const full = await uc.execute("d1", { isAdminOrOwner: true });
    expect([full.isFull, full.questions.length, full.fields.length, full.vectors.length, full.metadata.map((m) => m.name)]).toEqual([
      true,
      1,
      4,
      1,
      ["genre", "secret"],
    ]);
    const annotator = await uc.execute("d1", { isAdminOrOwner: false });
    expect([
      annotator.isFull,
      annotator.dataset,
      annotator.questions.length,
      annotator.vectors.map((v) => v.name),
      annotator.metadata.map((m) => m.name),
    ]).toEqual([false, dataset, 1, ["v"], ["genre"]]);
    expect(list).toHaveBeenCalledTimes(2);
    expect(vectors.list).toHaveBeenCalledTimes(2);

    // an annotator still gets the dataset when a settings list fails; an admin's load fails (editing needs everything)
    vectors.list.mockRejectedValue(new Error("403"));
    const partial = await uc.execute("d1", { isAdminOrOwner: false });
    expect([partial.dataset, partial.vectors, partial.metadata.length]).toEqual([dataset, [], 1]);
    await expect(uc.execute("d1", { isAdminOrOwner: true })).rejects.toThrow("403");
  });

  it("builds the creation model from the Hub and previews the first row without the external id", async () => {
    const hub: HubRepository = {
      getDatasetInfo: async (repoId) => ({ repoId, subsets: [{ name: "plain_text", splits: ["train"], features: FEATURES }] }),
      getFirstRow: async () => ({ id: "1", text: "hello" }),
    };
    const c = await new GetDatasetCreationUseCase(hub).execute("stanfordnlp/imdb");
    expect(c.name).toBe("imdb");
    expect(await new GetFirstRecordFromHubUseCase(hub).execute(c)).toEqual({ text: "hello" });
    const failing: HubRepository = {
      ...hub,
      getFirstRow: async () => {
        throw new Error("x");
      },
    };
    expect(await new GetFirstRecordFromHubUseCase(failing).execute(c)).toEqual({});
    const noId = DatasetCreation.fromInfo("a/b", [
      { name: "default", splits: [], features: { text: { _type: "Value", dtype: "string" } } },
    ]);
    expect(await new GetFirstRecordFromHubUseCase(hub).execute(noId)).toEqual({ id: "1", text: "hello" });
  });
});
