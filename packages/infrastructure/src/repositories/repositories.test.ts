import { describe, expect, it } from "vitest";
import {
  ErrorCode,
  RecordCriteria,
  TOKENS,
  LoadRecordsUseCase,
  SubmitRecordUseCase,
  DatasetRecord,
  type AgentRepository,
  type DatasetManagementRepository,
  type FieldRepository,
  type MetadataRepository,
  type QuestionRepository,
  type RecordRepository,
  type ResponseRepository,
  type VectorRepository,
} from "@tessera/domain";
import { createContainer } from "../container.js";
import { MemoryStorage, PRODUCT_STORAGE_KEY } from "../storage/local-storage.js";
import { fakeFetch, json, type Handler } from "../testing/fake-fetch.js";

function app(handler: Handler) {
  const storage = new MemoryStorage();
  storage.setItem(PRODUCT_STORAGE_KEY, JSON.stringify({ "auth.token": "jwt" }));
  const http = fakeFetch(handler);
  return { c: createContainer({ storage, origin: "http://app.test", fetch: http.fn }), http };
}

const fieldCreate = { name: "f", title: "F", required: true, settings: { type: "text" as const } };
const questionCreate = { name: "q", title: "Q", required: true, settings: { type: "text" as const } };
const CASES: Array<[string, symbol, (repo: never) => Promise<unknown>, string]> = [
  [
    "records.search",
    TOKENS.RecordRepository,
    (r: RecordRepository) => r.search({ datasetId: "d", offset: 0, limit: 1, body: {} }),
    ErrorCode.ERROR_FETCHING_RECORDS,
  ],
  ["records.getById", TOKENS.RecordRepository, (r: RecordRepository) => r.getById("r"), ErrorCode.ERROR_FETCHING_RECORD_BY_ID],
  ["agents.getAgents", TOKENS.AgentRepository, (r: AgentRepository) => r.getAgents("d"), ErrorCode.GET_AGENTS],
  [
    "responses.create",
    TOKENS.ResponseRepository,
    (r: ResponseRepository) => r.create("r", { status: "draft", values: {} }),
    ErrorCode.ERROR_CREATING_RECORD_RESPONSE,
  ],
  [
    "responses.update",
    TOKENS.ResponseRepository,
    (r: ResponseRepository) => r.update("x", { status: "draft", values: {} }),
    ErrorCode.ERROR_UPDATING_RECORD_RESPONSE,
  ],
  ["responses.delete", TOKENS.ResponseRepository, (r: ResponseRepository) => r.delete("x"), ErrorCode.ERROR_DELETING_RECORD_RESPONSE],
  ["responses.bulk", TOKENS.ResponseRepository, (r: ResponseRepository) => r.bulk([]), ErrorCode.ERROR_CREATING_RECORD_RESPONSE_BULK],
  ["fields.list", TOKENS.FieldRepository, (r: FieldRepository) => r.list("d"), ErrorCode.ERROR_FETCHING_FIELDS],
  ["fields.create", TOKENS.FieldRepository, (r: FieldRepository) => r.create("d", fieldCreate), ErrorCode.ERROR_PATCHING_FIELDS],
  [
    "fields.update",
    TOKENS.FieldRepository,
    (r: FieldRepository) => r.update("f", { title: "t", settings: { type: "text" } }),
    ErrorCode.ERROR_PATCHING_FIELDS,
  ],
  ["questions.list", TOKENS.QuestionRepository, (r: QuestionRepository) => r.list("d"), ErrorCode.ERROR_FETCHING_QUESTIONS],
  [
    "questions.create",
    TOKENS.QuestionRepository,
    (r: QuestionRepository) => r.create("d", questionCreate),
    ErrorCode.ERROR_PATCHING_QUESTIONS,
  ],
  [
    "questions.update",
    TOKENS.QuestionRepository,
    (r: QuestionRepository) => r.update("q", { title: "t", description: null, settings: { type: "text" } }),
    ErrorCode.ERROR_PATCHING_QUESTIONS,
  ],
  ["metadata.list", TOKENS.MetadataRepository, (r: MetadataRepository) => r.list("d"), ErrorCode.ERROR_FETCHING_METADATA],
  [
    "metadata.create",
    TOKENS.MetadataRepository,
    (r: MetadataRepository) => r.create("d", { name: "m", title: "M", settings: { type: "terms" } }),
    ErrorCode.ERROR_CREATING_METADATA,
  ],
  [
    "metadata.update",
    TOKENS.MetadataRepository,
    (r: MetadataRepository) => r.update("m", { title: "t", visibleForAnnotators: true }),
    ErrorCode.ERROR_UPDATING_METADATA,
  ],
  [
    "metadata.getMetrics",
    TOKENS.MetadataRepository,
    (r: MetadataRepository) => r.getMetrics("m"),
    ErrorCode.ERROR_FETCHING_METADATA_METRIC,
  ],
  ["vectors.list", TOKENS.VectorRepository, (r: VectorRepository) => r.list("d"), ErrorCode.ERROR_FETCHING_VECTORS],
  ["vectors.update", TOKENS.VectorRepository, (r: VectorRepository) => r.update("v", { title: "t" }), ErrorCode.ERROR_PATCHING_VECTORS],
  [
    "datasets.getById",
    TOKENS.DatasetManagementRepository,
    (r: DatasetManagementRepository) => r.getById("d"),
    ErrorCode.ERROR_FETCHING_DATASET,
  ],
  [
    "datasets.update",
    TOKENS.DatasetManagementRepository,
    (r: DatasetManagementRepository) => r.update("d", { guidelines: "g" }),
    ErrorCode.ERROR_PATCHING_DATASET_GUIDELINES,
  ],
  [
    "datasets.delete",
    TOKENS.DatasetManagementRepository,
    (r: DatasetManagementRepository) => r.delete("d"),
    ErrorCode.ERROR_DELETING_DATASET,
  ],
  [
    "datasets.create",
    TOKENS.DatasetManagementRepository,
    (r: DatasetManagementRepository) =>
      r.create({
        name: "n",
        workspaceId: "w",
        metadata: { repoId: "a/b", subset: "s", split: "t", mapping: { fields: [], metadata: [], suggestions: [] } },
      }),
    ErrorCode.ERROR_CREATING_DATASET,
  ],
  [
    "datasets.publish",
    TOKENS.DatasetManagementRepository,
    (r: DatasetManagementRepository) => r.publish("d"),
    ErrorCode.ERROR_PUBLISHING_DATASET,
  ],
  [
    "datasets.import",
    TOKENS.DatasetManagementRepository,
    (r: DatasetManagementRepository) =>
      r.import("d", { name: "a/b", subset: "s", split: "t", mapping: { fields: [], metadata: [], suggestions: [] } }),
    ErrorCode.ERROR_IMPORTING_DATASET,
  ],
  [
    "datasets.getMetrics",
    TOKENS.DatasetManagementRepository,
    (r: DatasetManagementRepository) => r.getMetrics("d"),
    ErrorCode.ERROR_FETCHING_DATASET_INFO,
  ],
];

describe("repository error codes (spec section 8)", () => {
  it.each(CASES)("%s throws its catalogued code with the status", async (_name, token, run, code) => {
    const { c } = app(() => json({ detail: "no" }, 500));
    await expect(run(c.resolve(token) as never)).rejects.toMatchObject({ code, status: 500 });
  });

  it("deleting a dataset succeeds only on HTTP 200", async () => {
    const ok = app(() => json({}, 200)).c.resolve<DatasetManagementRepository>(TOKENS.DatasetManagementRepository);
    await expect(ok.delete("d")).resolves.toBeUndefined();
    const accepted = app(() => new Response(null, { status: 204 })).c.resolve<DatasetManagementRepository>(
      TOKENS.DatasetManagementRepository,
    );
    await expect(accepted.delete("d")).rejects.toMatchObject({ code: ErrorCode.ERROR_DELETING_DATASET, status: 204 });
  });
});

const backendRecord = (id: string, extra: object = {}) => ({
  id,
  status: "pending",
  fields: { text: `t-${id}` },
  metadata: { lang: "en" },
  dataset_id: "d",
  inserted_at: "i",
  updated_at: "u",
  ...extra,
});
const backendQuestion = {
  id: "q1",
  name: "label",
  title: "Label",
  description: null,
  required: true,
  dataset_id: "d",
  settings: {
    type: "label_selection",
    options: [
      { value: "a", text: "a" },
      { value: "b", text: "b" },
    ],
  },
};
const backendField = {
  id: "f1",
  name: "text",
  title: "Text",
  required: true,
  dataset_id: "d",
  settings: { type: "text", use_markdown: false },
};

describe("records over HTTP", () => {
  it("searches with include, offset, limit and the criteria body, mapping responses and suggestions", async () => {
    const { c, http } = app((req) => {
      const path = new URL(req.url).pathname;
      if (path.endsWith("/records/search")) {
        return json({
          total: 1,
          items: [
            {
              query_score: 0.5,
              record: backendRecord("r1", {
                responses: [{ id: "resp", status: "draft", values: { label: { value: "a" } }, record_id: "r1", updated_at: "x" }],
                suggestions: [{ id: "s", question_id: "q1", value: "b", agent: "m", score: 0.7 }],
              }),
            },
          ],
        });
      }
      if (path.endsWith("/questions")) return json({ items: [backendQuestion] });
      if (path.endsWith("/fields")) return json({ items: [backendField] });
      return json({}, 404);
    });
    const criteria = new RecordCriteria({ datasetId: "d 1" });
    const queue = await c.resolve(LoadRecordsUseCase).load(criteria);
    const search = http.calls.find((r) => r.url.includes("/records/search"))!;
    const url = new URL(search.url);
    expect(url.pathname).toBe("/api/v1/me/datasets/d%201/records/search");
    expect(url.searchParams.getAll("include")).toEqual(["responses", "suggestions"]);
    expect([url.searchParams.get("offset"), url.searchParams.get("limit")]).toEqual(["0", "10"]);
    expect(await search.json()).toEqual(criteria.toSearchBody());
    expect(search.headers.get("authorization")).toBe("Bearer jwt");
    const record = queue.recordAt(1)!;
    expect(record.status).toBe("draft");
    expect(record.question("label")?.answer.value).toBe("a");
    expect(record.question("label")?.suggestion?.scoreFor()).toBe(0.7);
    expect(record.score.percentage).toBe(50);
    expect(record.field("text")?.content).toBe("t-r1");
  });

  it("submits with values wrapped as {value} and maps the returned response", async () => {
    const { c, http } = app(async (req) => {
      const body = (await req.json()) as { status: string; values: object };
      return json({ id: "resp-1", status: body.status, values: body.values, record_id: "r1", updated_at: "now" }, 201);
    });
    const record = new DatasetRecord(
      {
        id: "r1",
        datasetId: "d",
        fields: {},
        metadata: null,
        response: null,
        suggestions: [],
        insertedAt: "",
        updatedAt: "",
        queryScore: null,
        taskStatus: "pending",
      },
      [
        {
          id: "q1",
          name: "label",
          datasetId: "d",
          title: "L",
          required: true,
          settings: { type: "label_selection", options: [{ value: "a" }] },
        },
      ],
      [],
      1,
    );
    record.initialize();
    record.question("label")?.answer.set("a");
    const saved = await c.resolve(SubmitRecordUseCase).execute(record);
    expect(await http.calls[0]!.json()).toEqual({ status: "submitted", values: { label: { value: "a" } } });
    expect(new URL(http.calls[0]!.url).pathname).toBe("/api/v1/records/r1/responses");
    expect(saved).toEqual({ id: "resp-1", status: "submitted", values: { label: "a" }, updatedAt: "now", recordId: "r1" });
  });

  it("bulk maps items and per-item errors", async () => {
    const { c, http } = app(() =>
      json({
        items: [
          { item: { id: "x", status: "submitted", values: null, record_id: "r1", updated_at: "t" }, error: null },
          { item: null, error: { detail: "bad value" } },
        ],
      }),
    );
    const repo = c.resolve<ResponseRepository>(TOKENS.ResponseRepository);
    const result = await repo.bulk([
      { recordId: "r1", status: "submitted", values: {} },
      { recordId: "r2", status: "submitted", values: { t: "x" } },
    ]);
    expect(await http.calls[0]!.json()).toEqual({
      items: [
        { record_id: "r1", status: "submitted", values: {} },
        { record_id: "r2", status: "submitted", values: { t: { value: "x" } } },
      ],
    });
    expect(result).toEqual([
      { recordId: "r1", success: true, response: { id: "x", status: "submitted", values: {}, updatedAt: "t", recordId: "r1" } },
      { recordId: "r2", success: false, error: "bad value" },
    ]);
  });

  it("maps agents, metadata metrics, vectors and datasets", async () => {
    const { c } = app((req) => {
      const path = new URL(req.url).pathname;
      if (path.endsWith("/suggestions/options")) return json({ items: [{ question: { id: "q1", name: "label" }, agents: ["gpt"] }] });
      if (path.endsWith("/m1/metrics")) return json({ type: "terms", total: 3, values: [{ term: "en", count: 3 }] });
      if (path.endsWith("/m2/metrics")) return json({ type: "float", min: 0.5, max: 2 });
      if (path.endsWith("/vectors-settings"))
        return json({ items: [{ id: "v", name: "emb", title: "Emb", dimensions: 3, dataset_id: "d" }] });
      if (path === "/api/v1/datasets/d")
        return json({
          id: "d",
          name: "n",
          guidelines: "g",
          status: "ready",
          workspace_id: "w",
          allow_extra_metadata: false,
          distribution: { strategy: "overlap", min_submitted: 2 },
          metadata: null,
          inserted_at: "i",
          updated_at: "u",
          last_activity_at: "l",
        });
      if (path === "/api/v1/workspaces/w") return json({ id: "w", name: "team" });
      if (path.endsWith("/metrics")) return json({ responses: { total: 10, submitted: 2, discarded: 1, draft: 1, pending: 6 } });
      return json({}, 404);
    });
    expect(await c.resolve<AgentRepository>(TOKENS.AgentRepository).getAgents("d")).toEqual([
      { questionId: "q1", questionName: "label", agents: ["gpt"] },
    ]);
    const metadata = c.resolve<MetadataRepository>(TOKENS.MetadataRepository);
    expect(await metadata.getMetrics("m1")).toEqual({ type: "terms", total: 3, terms: [{ term: "en", count: 3 }] });
    expect(await metadata.getMetrics("m2")).toEqual({ type: "float", min: 0.5, max: 2 });
    expect(await c.resolve<VectorRepository>(TOKENS.VectorRepository).list("d")).toEqual([
      { id: "v", name: "emb", title: "Emb", dimensions: 3, datasetId: "d" },
    ]);
    const datasets = c.resolve<DatasetManagementRepository>(TOKENS.DatasetManagementRepository);
    const ds = await datasets.getById("d");
    expect([ds.workspaceName, ds.distribution.minSubmitted]).toEqual(["team", 2]);
    const metrics = await datasets.getMetrics("d");
    expect([metrics.responded, metrics.progress]).toEqual([4, 40]);
  });

  it("sends dataset creation with imported 'UI' and dataset updates in wire names", async () => {
    const { c, http } = app((req) => (req.method === "POST" ? json({ id: "new" }, 201) : json({ updated_at: "2026-05-05" })));
    const datasets = c.resolve<DatasetManagementRepository>(TOKENS.DatasetManagementRepository);
    const mapping = { fields: [{ source: "text", target: "text" }], metadata: [], suggestions: [], external_id: "id" };
    expect(
      await datasets.create({
        name: "imdb",
        workspaceId: "w",
        metadata: { repoId: "stanfordnlp/imdb", subset: "plain_text", split: "train", mapping },
      }),
    ).toBe("new");
    expect(await http.calls[0]!.json()).toEqual({
      name: "imdb",
      workspace_id: "w",
      metadata: { repoId: "stanfordnlp/imdb", subset: "plain_text", split: "train", mapping, imported: "UI" },
    });
    expect(await datasets.update("new", { distribution: { strategy: "overlap", minSubmitted: 2 }, allowExtraMetadata: true })).toEqual({
      updatedAt: "2026-05-05",
    });
    expect(await http.calls[1]!.json()).toEqual({ allow_extra_metadata: true, distribution: { strategy: "overlap", min_submitted: 2 } });
  });
});
