import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { FORBIDDEN, type Json } from "../testing/fixtures.js";
import { recordItems, richDataset, type RichDataset } from "../records/testing.js";

let server: TestServer;
let d: RichDataset;
beforeAll(async () => {
  server = await startTestServer();
  d = await richDataset(server);
}, 60_000);
afterAll(async () => {
  await server.stop();
});

type RecordJson = Json & {
  id: string;
  external_id: string | null;
  fields: Json;
  metadata: Json | null;
  suggestions?: Json[];
  vectors?: Record<string, number[]>;
};
/** Every record of the dataset (paged), with suggestions and vectors. */
const records = async () => {
  const items: RecordJson[] = [];
  for (let offset = 0; ; offset += 1000) {
    const page = (
      await d.f.request<{ items: RecordJson[]; total: number }>(
        "GET",
        `/datasets/${d.datasetId}/records?offset=${offset}&limit=1000&include=suggestions&include=vectors`,
      )
    ).body;
    items.push(...page.items);
    if (page.items.length === 0) return { items, total: page.total };
  }
};
const byExternal = async (externalId: string) => (await records()).items.find((r) => r.external_id === externalId);

describe("POST /datasets/{id}/records (legacy create, contract 3.10)", () => {
  it("creates up to 1000 records through the bulk ingestion path and answers 204", async () => {
    const before = (await records()).total;
    const res = await d.f.request("POST", `/datasets/${d.datasetId}/records`, {
      body: {
        items: recordItems(1000, "legacy", (i) => (i === 0 ? { metadata: { genre: "news" }, vectors: { [d.vectorName]: [1, 2, 3] } } : {})),
      },
    });
    expect(res).toEqual({ status: 204, body: null });
    const after = await records();
    expect(after.total).toBe(before + 1000);
    expect(await byExternal("legacy-0")).toMatchObject({
      fields: { text: "Record number 0 about cats" },
      metadata: { genre: "news" },
      vectors: { [d.vectorName]: [1, 2, 3] },
    });
  });

  it("keeps the limits and the validation of the bulk route, storing nothing on error", async () => {
    const total = (await records()).total;
    const post = (items: unknown, headers = d.f.owner) =>
      d.f.request<Json>("POST", `/datasets/${d.datasetId}/records`, { body: { items }, headers });
    expect((await post([])).status).toBe(422);
    expect((await post(recordItems(1001, "too-many"))).status).toBe(422);
    const invalid = await post([...recordItems(2, "ok"), { external_id: "bad", fields: { text: "t", nope: "x" } }]);
    expect(invalid).toEqual({
      status: 422,
      body: { detail: "Record at position 2 is not valid because found fields values for non configured fields: ['nope']" },
    });
    const dup = await post([...recordItems(1, "same"), ...recordItems(1, "same")]);
    expect(dup.status).toBe(422);
    expect(JSON.stringify(dup.body)).toContain("External IDs must be unique");
    expect(await post(recordItems(1, "legacy"))).toEqual({
      status: 422,
      body: { detail: "found records with same external ids: legacy-0" },
    });
    expect(await post(recordItems(1, "annot"), d.annotator.headers)).toEqual({ status: 403, body: FORBIDDEN });
    expect(await post(recordItems(1, "outside"), d.outsideAdmin.headers)).toEqual({ status: 403, body: FORBIDDEN });
    expect(
      (await d.f.request("POST", "/datasets/00000000-0000-4000-8000-000000000000/records", { body: { items: recordItems(1) } })).status,
    ).toBe(404);
    const draft = await d.f.readyDataset({ draft: true });
    expect(
      await d.f.request("POST", `/datasets/${draft.datasetId}/records`, { body: { items: [{ fields: { [draft.fieldName]: "x" } }] } }),
    ).toEqual({ status: 422, body: { detail: "records cannot be created for a non published dataset" } });
    expect((await records()).total).toBe(total);
  });
});

describe("PATCH /datasets/{id}/records (legacy update, contract 3.10)", () => {
  it("updates metadata, suggestions and vectors of existing records by id, never their fields, and answers 204", async () => {
    const [a, b] = (await d.f.records(
      d.datasetId,
      recordItems(2, "upd", () => ({ metadata: { genre: "blog" } })),
    )) as [string, string];
    const res = await d.f.request("PATCH", `/datasets/${d.datasetId}/records`, {
      body: {
        items: [
          {
            id: a,
            metadata: { genre: "forum" },
            fields: { text: "ignored" },
            external_id: "ignored",
            suggestions: [{ question_id: d.questions.label.id, value: "positive", score: 0.5 }],
            vectors: { [d.vectorName]: [0, 1, 0] },
          },
          { id: b, vectors: { [d.vectorName]: [1, 0, 0] } },
        ],
      },
    });
    expect(res).toEqual({ status: 204, body: null });
    const after = await records();
    const a2 = after.items.find((r) => r.id === a)!;
    const b2 = after.items.find((r) => r.id === b)!;
    expect(a2).toMatchObject({
      external_id: "upd-0",
      fields: { text: "Record number 0 about cats" },
      metadata: { genre: "forum" },
      vectors: { [d.vectorName]: [0, 1, 0] },
    });
    expect(a2.suggestions).toMatchObject([{ question_id: d.questions.label.id, value: "positive", score: 0.5 }]);
    expect(b2).toMatchObject({ metadata: { genre: "blog" }, vectors: { [d.vectorName]: [1, 0, 0] } });
  });

  it("refuses unknown or duplicate ids, records of other datasets, bad values and non-admins, changing nothing", async () => {
    const [id] = await d.f.records(
      d.datasetId,
      recordItems(1, "keep", () => ({ metadata: { genre: "news" } })),
    );
    const other = await d.f.readyDataset();
    const [foreign] = await d.f.records(other.datasetId, [{ fields: { [other.fieldName]: "x" } }]);
    const patch = (items: unknown, headers = d.f.owner) =>
      d.f.request<Json>("PATCH", `/datasets/${d.datasetId}/records`, { body: { items }, headers });
    const missing = "00000000-0000-4000-8000-000000000001";
    expect(await patch([{ id, metadata: { genre: "blog" } }, { id: missing }])).toEqual({
      status: 422,
      body: { detail: `Found records that do not exist: ${missing}` },
    });
    expect(await patch([{ id: foreign }])).toEqual({ status: 422, body: { detail: `Found records that do not exist: ${foreign}` } });
    expect(await patch([{ id, metadata: { genre: "blog" } }, { id }])).toEqual({
      status: 422,
      body: { detail: "Found duplicate records IDs" },
    });
    expect(await patch([{ id, metadata: { genre: "poetry" } }])).toMatchObject({
      status: 422,
      body: { detail: expect.stringContaining("Record at position 0 is not valid because metadata is not valid") },
    });
    expect((await patch([{ metadata: {} }])).status).toBe(422);
    expect((await patch([])).status).toBe(422);
    expect((await patch(Array.from({ length: 1001 }, () => ({ id })))).status).toBe(422);
    expect(await patch([{ id, metadata: { genre: "blog" } }], d.annotator.headers)).toEqual({ status: 403, body: FORBIDDEN });
    expect((await byExternal("keep-0"))!.metadata).toEqual({ genre: "news" });
  });
});
