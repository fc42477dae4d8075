import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { FORBIDDEN, UNAUTHORIZED, type Json } from "../testing/fixtures.js";
import { recordItems, richDataset, type RichDataset } from "../records/testing.js";
import { ingestRecords } from "../records/ingest.js";
import { parseRecordsBulk } from "../records/input.js";

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
  status: string;
  fields: Json;
  metadata: Json | null;
  responses?: Json[];
  suggestions?: Json[];
  vectors?: Record<string, number[]>;
};
const bulk = (method: "POST" | "PUT", items: unknown, datasetId = d.datasetId, headers = d.f.owner) =>
  d.f.request<Json>(method, `/datasets/${datasetId}/records/bulk`, { body: { items }, headers });
const list = async (query = "", datasetId = d.datasetId) =>
  d.f.request<{ items: RecordJson[]; total: number }>("GET", `/datasets/${datasetId}/records${query}`);

describe("POST /datasets/{id}/records/bulk", () => {
  it("creates records with metadata, suggestions, responses and vectors, returned in input order", async () => {
    const res = await bulk("POST", [
      {
        external_id: "create-1",
        fields: { text: "Ada Lovelace wrote programs", context: "history" },
        metadata: { genre: "news", words: 4, quality: 0.5 },
        suggestions: [{ question_id: d.questions.label.id, value: "positive", score: 0.9, agent: "model-a", type: "model" }],
        responses: [{ user_id: d.annotator.id, status: "submitted", values: { label: { value: "negative" } } }],
        vectors: { [d.vectorName]: [0.1, 0.2, 0.3] },
      },
      { external_id: "create-2", fields: { text: "Second" } },
    ]);
    expect(res.status).toBe(201);
    const items = (res.body as { items: RecordJson[] }).items;
    expect(items.map((r) => r.external_id)).toEqual(["create-1", "create-2"]);
    expect(items[0]).toMatchObject({
      status: "completed",
      fields: { text: "Ada Lovelace wrote programs" },
      metadata: { genre: "news", words: 4, quality: 0.5 },
      dataset_id: d.datasetId,
    });
    expect(items[0]!.suggestions![0]).toMatchObject({
      question_id: d.questions.label.id,
      value: "positive",
      score: 0.9,
      agent: "model-a",
      type: "model",
    });
    expect(items[0]!.responses![0]).toMatchObject({
      user_id: d.annotator.id,
      status: "submitted",
      values: { label: { value: "negative" } },
    });
    expect(items[0]).not.toHaveProperty("vectors");
    expect((await d.f.request<RecordJson>("GET", `/records/${items[0]!.id}`)).body.vectors).toEqual({ [d.vectorName]: [0.1, 0.2, 0.3] });
    expect(items[1]!.status).toBe("pending");
    // New ids are UUIDv7 (time-ordered, so their unique indexes grow at the right edge; records/ingest.ts).
    const v7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
    for (const id of [items[0]!.id, items[1]!.id, items[0]!.suggestions![0]!.id, items[0]!.responses![0]!.id]) expect(id).toMatch(v7);
    expect(Math.abs(parseInt(items[0]!.id.replace("-", "").slice(0, 12), 16) - Date.now())).toBeLessThan(3_600_000);
  });

  it("refuses existing external ids, duplicates in the payload and non published datasets", async () => {
    const dup = await bulk("POST", recordItems(1, "create"));
    await bulk("POST", recordItems(1, "dupe"));
    const again = await bulk("POST", recordItems(1, "dupe"));
    expect(again).toEqual({ status: 422, body: { detail: "found records with same external ids: dupe-0" } });
    expect(dup.status).toBe(201);
    const inPayload = await bulk("POST", [...recordItems(1, "same"), ...recordItems(1, "same")]);
    expect(inPayload.status).toBe(422);
    expect(JSON.stringify(inPayload.body)).toContain("External IDs must be unique");
    const draft = await d.f.readyDataset({ draft: true });
    expect(await bulk("POST", [{ fields: { [draft.fieldName]: "x" } }], draft.datasetId)).toEqual({
      status: 422,
      body: { detail: "records cannot be created for a non published dataset" },
    });
  });

  it.each([
    ["empty fields", { fields: {} }, "fields cannot be empty"],
    ["a missing required field", { fields: { context: "c" } }, "missing required value for field: 'text'"],
    ["an unknown field", { fields: { text: "t", nope: "x" } }, "found fields values for non configured fields: ['nope']"],
    ["a wrong field type", { fields: { text: 3 } }, "Wrong value found for field 'text'. Expected 'str', found 'int'"],
    [
      "an unknown metadata key",
      { fields: { text: "t" }, metadata: { extra: 1 } },
      "metadata is not valid: 'extra' metadata property does not exists for dataset",
    ],
    [
      "a term out of the list",
      { fields: { text: "t" }, metadata: { genre: "poetry" } },
      "metadata is not valid: 'genre' metadata property validation failed because 'poetry' is not an allowed term.",
    ],
    [
      "an integer out of range",
      { fields: { text: "t" }, metadata: { words: 5000 } },
      "metadata is not valid: 'words' metadata property validation failed because",
    ],
    [
      "an unknown vector",
      { fields: { text: "t" }, vectors: { other: [1, 2, 3] } },
      "record does not have valid vectors: vector with name=other does not exist for dataset_id=",
    ],
    [
      "a vector of the wrong size",
      { fields: { text: "t" }, vectors: { emb: [1, 2] } },
      "record does not have valid vectors: vector must have 3 elements, got 2 elements",
    ],
    [
      "an invalid suggestion value",
      { fields: { text: "t" }, suggestions: [{ question_id: "QID", value: "maybe" }] },
      "record does not have valid suggestions: 'maybe' is not a valid label",
    ],
    [
      "a suggestion for an unknown question",
      { fields: { text: "t" }, suggestions: [{ question_id: "00000000-0000-4000-8000-000000000000", value: "x" }] },
      "record does not have valid suggestions: question with id=00000000-0000-4000-8000-000000000000 does not exist",
    ],
    [
      "a response of an unknown user",
      { fields: { text: "t" }, responses: [{ user_id: "00000000-0000-4000-8000-000000000000", status: "draft", values: {} }] },
      "record does not have valid responses: user with id `00000000-0000-4000-8000-000000000000` not found",
    ],
    [
      "a submitted response missing a required question",
      { fields: { text: "t" }, responses: [{ user_id: "UID", status: "submitted", values: { comment: { value: "hi" } } }] },
      "record does not have valid responses: missing response value for required question with name='label'",
    ],
  ])("refuses %s with the position in the message and stores nothing", async (_label, item, message) => {
    const fixed = JSON.parse(JSON.stringify(item).replace("QID", d.questions.label.id).replace("UID", d.annotator.id)) as Json;
    const before = (await list()).body.total;
    const res = await bulk("POST", [...recordItems(2, `bad-${Math.random()}`), fixed]);
    expect(res.status).toBe(422);
    expect((res.body as { detail: string }).detail).toContain(`Record at position 2 is not valid because ${message}`);
    expect((await list()).body.total).toBe(before);
  });

  it("accepts 500 items and refuses 501 or none with the legacy validation error", async () => {
    expect((await bulk("POST", recordItems(500, "many"))).status).toBe(201);
    const tooMany = await bulk("POST", recordItems(501, "toomany"));
    expect(tooMany.status).toBe(422);
    expect((tooMany.body as { detail: { code: string } }).detail.code).toBe("argilla.api.errors::ValidationError");
    expect((await bulk("POST", [])).status).toBe(422);
  });

  it("never answers 500 on malformed bodies", async () => {
    for (const body of [
      "{not json",
      "null",
      "[]",
      JSON.stringify({ items: "x" }),
      JSON.stringify({ items: [{ fields: "x" }] }),
      JSON.stringify({ items: [{ fields: { text: "t" }, vectors: { emb: ["a"] } }] }),
    ]) {
      const res = await d.f.request("POST", `/datasets/${d.datasetId}/records/bulk`, { body });
      expect(res.status, body).toBe(422);
    }
  });

  it("parses bulk bodies as every other route does (its own JSON parser): prototype keys, escapes, invalid JSON", async () => {
    const other = `/datasets/${d.datasetId}/records/search`;
    for (const body of [
      '{"items": [{"fields": {"text": "a"}, "__proto__": {"x": 1}}]}',
      '{"items": [{"fields": {"text": "a"}, "\\u005f_proto__": {"x": 1}}]}',
      '{"items": [{"fields": {"text": "a"}, "constructor": {"prototype": {"x": 1}}}]}',
      '{"items": [{"fields": {"text": "a"}, "suggestions": [{"question_name": "q", "value": [{"__proto__": {"x": 1}}]}]}]}',
      '{"items": [{"fields": {"text": "a"}, "\\u0063onstructor": {"prototype": {"x": 1}}}]}',
      "{not json",
    ]) {
      const res = await d.f.request("POST", `/datasets/${d.datasetId}/records/bulk`, { body });
      expect(res.status, body).toBeGreaterThanOrEqual(400);
      expect(res, body).toEqual(await d.f.request("POST", other, { body }));
    }
    // Escapes of other characters: the default parser's path (\u0065) or the fast one (\u00e9, \u0041), the same text.
    const raw = '{"items": [{"external_id": "esc-1", "fields": {"text": "caf\\u00e9 \\u0041 th\\u0065"}}]}';
    const res = await d.f.request<{ items: RecordJson[] }>("POST", `/datasets/${d.datasetId}/records/bulk`, { body: raw });
    expect(res.status).toBe(201);
    expect(res.body.items[0]!.fields).toEqual({ text: "café A the" });
  });

  it("applies the permission rules", async () => {
    const items = recordItems(1, `perm-${Date.now()}`);
    expect(await bulk("POST", items, d.datasetId, d.annotator.headers)).toEqual({ status: 403, body: FORBIDDEN });
    expect(await bulk("POST", items, d.datasetId, d.outsideAdmin.headers)).toEqual({ status: 403, body: FORBIDDEN });
    expect((await d.f.request("POST", `/datasets/${d.datasetId}/records/bulk`, { body: { items }, headers: null })).body).toEqual(
      UNAUTHORIZED,
    );
    expect((await bulk("POST", items, d.datasetId, d.admin.headers)).status).toBe(201);
    expect((await bulk("POST", items, "not-a-uuid")).status).toBe(422);
    expect(await bulk("POST", items, "00000000-0000-4000-8000-000000000000")).toEqual({
      status: 404,
      body: { detail: "Dataset with id `00000000-0000-4000-8000-000000000000` not found" },
    });
  });
});

describe("PUT /datasets/{id}/records/bulk", () => {
  it("the response's JSON is JSON.stringify of the stored records: new records reuse their stored JSON, updated ones are read back", async () => {
    await bulk("PUT", [{ external_id: "json-0", fields: { text: "kept" }, metadata: { genre: "news" } }]);
    const items = [
      { external_id: "json-0", metadata: { genre: "blog" } },
      { external_id: "json-1", fields: { text: 'quote " backslash \\ newline \n é 😀 \u2028' }, metadata: null },
      {
        external_id: "json-2",
        fields: { text: "x", context: "" },
        metadata: { genre: "forum", words: 3, quality: 0.25 },
        vectors: { emb: [0.5, 0, 1] },
        suggestions: [
          { question_id: d.questions.label.id, value: "positive", score: 0.5, agent: "m", type: "model" as const },
          { question_name: "multi", value: ["a", "c"] },
        ],
        responses: [{ user_id: d.annotator.id, status: "submitted" as const, values: { label: { value: "negative" } } }],
      },
      { fields: { text: "no external id" } },
      { external_id: 7, fields: { text: "numeric external id" } },
      { external_id: "json-bad", fields: {} },
    ];
    const result = await ingestRecords(server.ctx.db, d.datasetId, parseRecordsBulk({ items }).items, {
      mode: "upsert",
      raiseOnError: false,
    });
    expect(result.errors.map((e) => e.position)).toEqual([5]);
    expect(result.updatedIds).toHaveLength(1);
    expect(result.items).toHaveLength(5);
    expect(result.itemsJson()).toBe(JSON.stringify(result.items));
    const res = await d.f.request<{ items: RecordJson[]; updated_item_ids: string[] }>("PUT", `/datasets/${d.datasetId}/records/bulk`, {
      body: { items: items.slice(1, 2).map((i) => ({ ...i, external_id: "json-1b" })) },
    });
    expect(res.status).toBe(200);
    expect(res.body.items[0]!.fields).toEqual({ text: items[1]!.fields!.text });
    expect(res.body.updated_item_ids).toEqual([]);
  });

  it("upserts by external_id then id, updates the fields sent, replaces metadata only when sent", async () => {
    const created = (
      await bulk("PUT", [
        { external_id: "up-1", fields: { text: "original" }, metadata: { genre: "blog" } },
        { external_id: "up-2", fields: { text: "two" }, metadata: { genre: "news" } },
      ])
    ).body as { items: RecordJson[]; updated_item_ids: string[] };
    expect(created.updated_item_ids).toEqual([]);
    const [one, two] = created.items;
    const res = await bulk("PUT", [
      {
        external_id: "up-1",
        fields: { text: "changed" },
        metadata: { genre: "forum" },
        suggestions: [{ question_id: d.questions.rating.id, value: 4 }],
      },
      {
        id: two!.id,
        external_id: null,
        vectors: { emb: [1, 0, 0] },
        responses: [{ user_id: d.annotator.id, status: "draft", values: { rating: { value: 2 } } }],
      },
      { external_id: "up-3", fields: { text: "three" } },
    ]);
    expect(res.status).toBe(200);
    const body = res.body as { items: RecordJson[]; updated_item_ids: string[] };
    expect(body.updated_item_ids).toEqual([one!.id, two!.id]);
    expect(body.items[0]).toMatchObject({ id: one!.id, fields: { text: "changed" }, metadata: { genre: "forum" } });
    expect(body.items[0]!.suggestions![0]).toMatchObject({ value: 4 });
    expect(body.items[1]).toMatchObject({ id: two!.id, metadata: { genre: "news" } });
    expect((await d.f.request<RecordJson>("GET", `/records/${two!.id}`)).body.vectors).toEqual({ emb: [1, 0, 0] });
    expect(body.items[1]!.responses).toHaveLength(1);
    expect(body.items[2]!.external_id).toBe("up-3");
    // idempotent: same call again updates, creates nothing
    const again = (await bulk("PUT", [{ external_id: "up-3", fields: { text: "three" } }])).body as { updated_item_ids: string[] };
    expect(again.updated_item_ids).toEqual([body.items[2]!.id]);
  });

  it("updates only the fields sent (the SDK's log of {text, id} again), validated as a whole, and search finds the new text", async () => {
    const [created] = (
      await bulk("PUT", [
        { external_id: "fields-1", fields: { text: "before the update", context: "kept context" }, metadata: { genre: "news" } },
      ])
    ).body.items as RecordJson[];
    const res = await bulk("PUT", [{ external_id: "fields-1", fields: { text: "zeppelin after the update" } }]);
    expect(res.status).toBe(200);
    expect((res.body as { items: RecordJson[] }).items[0]).toMatchObject({
      id: created!.id,
      fields: { text: "zeppelin after the update", context: "kept context" },
      metadata: { genre: "news" },
    });
    expect((await d.f.request<RecordJson>("GET", `/records/${created!.id}`)).body.fields).toEqual({
      text: "zeppelin after the update",
      context: "kept context",
    });
    // By server id too, with an empty fields object changing nothing.
    expect(
      (
        await bulk("PUT", [
          { id: created!.id, fields: { context: "new context" } },
          { id: created!.id, fields: {} },
        ])
      ).status,
    ).toBe(422);
    expect((await bulk("PUT", [{ id: created!.id, fields: { context: "new context" } }])).status).toBe(200);
    expect((await bulk("PUT", [{ id: created!.id, fields: {} }])).status).toBe(200);
    expect((await d.f.request<RecordJson>("GET", `/records/${created!.id}`)).body.fields).toEqual({
      text: "zeppelin after the update",
      context: "new context",
    });
    // The merged fields must still be valid: a required field cannot go, unknown fields are refused.
    expect(await bulk("PUT", [{ external_id: "fields-1", fields: { text: null } }])).toEqual({
      status: 422,
      body: { detail: "Record at position 0 is not valid because missing required value for field: 'text'" },
    });
    expect(await bulk("PUT", [{ external_id: "fields-1", fields: { nope: "x" } }])).toEqual({
      status: 422,
      body: { detail: "Record at position 0 is not valid because found fields values for non configured fields: ['nope']" },
    });
    const found = await d.f.request<{ items: { record: RecordJson }[] }>("POST", `/datasets/${d.datasetId}/records/search`, {
      body: { query: { text: { q: "zeppelin" } } },
    });
    expect(found.body.items.map((i) => i.record.id)).toEqual([created!.id]);
    const old = await d.f.request<{ items: { record: RecordJson }[] }>("POST", `/datasets/${d.datasetId}/records/search`, {
      body: { query: { text: { q: "before", field: "text" } } },
    });
    expect(old.body.items.map((i) => i.record.id)).not.toContain(created!.id);
  });

  it("records of another dataset logged into this one are new records (the SDK's dataset copy), the originals untouched", async () => {
    const other = await richDataset(server);
    const source = (
      (
        await bulk("POST", [
          {
            external_id: "copy-1",
            fields: { text: "to copy" },
            metadata: { genre: "blog" },
            vectors: { emb: [0.25, 0.5, 1] },
            suggestions: [{ question_id: d.questions.label.id, value: "positive" }],
          },
        ])
      ).body as { items: RecordJson[] }
    ).items[0]!;
    const read = (await d.f.request<RecordJson>("GET", `/records/${source.id}`)).body;
    // What the SDK sends for a record read from the source: its server id, external id, fields, metadata, vectors (suggestions by question name).
    const item = {
      id: read.id,
      external_id: read.external_id,
      fields: read.fields,
      metadata: read.metadata,
      vectors: read.vectors,
      suggestions: [{ question_name: "label", value: "positive" }],
    };
    const copied = await bulk("PUT", [item], other.datasetId, other.f.owner);
    expect(copied.status).toBe(200);
    const body = copied.body as { items: RecordJson[]; updated_item_ids: string[] };
    expect(body.updated_item_ids).toEqual([]);
    const copy = body.items[0]!;
    expect(copy.id).not.toBe(source.id);
    expect(copy).toMatchObject({
      dataset_id: other.datasetId,
      external_id: "copy-1",
      fields: { text: "to copy" },
      metadata: { genre: "blog" },
    });
    expect((await d.f.request<RecordJson>("GET", `/records/${copy.id}`)).body.vectors).toEqual({ emb: [0.25, 0.5, 1] });
    expect((await d.f.request<RecordJson>("GET", `/records/${source.id}`)).body).toMatchObject({
      dataset_id: d.datasetId,
      fields: { text: "to copy" },
    });
    // Logging the copy again updates it (by external id); the id of a record of another dataset alone also makes a new record.
    expect(((await bulk("PUT", [item], other.datasetId, other.f.owner)).body as { updated_item_ids: string[] }).updated_item_ids).toEqual([
      copy.id,
    ]);
    const byIdOnly = (await bulk("PUT", [{ id: source.id, fields: { text: "by id only" } }], other.datasetId, other.f.owner)).body as {
      items: RecordJson[];
      updated_item_ids: string[];
    };
    expect(byIdOnly.updated_item_ids).toEqual([]);
    expect(byIdOnly.items[0]!.id).not.toBe(source.id);
    expect((await list("", other.datasetId)).body.total).toBe(2);
  });

  it("a failed upsert stores nothing, not even its valid items", async () => {
    const before = (await list()).body.total;
    const res = await bulk("PUT", [
      { external_id: "up-1", metadata: { genre: "blog" } },
      { external_id: "new-ok", fields: { text: "ok" } },
      { external_id: "new-bad", fields: {} },
    ]);
    expect(res).toEqual({ status: 422, body: { detail: "Record at position 2 is not valid because fields cannot be empty" } });
    expect((await list()).body.total).toBe(before);
    const search = await d.f.request<{ items: { record: RecordJson }[] }>("POST", `/datasets/${d.datasetId}/records/search`, {
      body: { filters: { and: [{ type: "terms", scope: { entity: "record", property: "external_id" }, values: ["up-1", "new-ok"] }] } },
    });
    expect(search.body.items.map((i) => [i.record.external_id, i.record.metadata])).toEqual([["up-1", { genre: "forum" }]]);
  });
});

describe("GET /datasets/{id}/records", () => {
  it("pages in insertion order with total and includes", async () => {
    const first = await list("?offset=0&limit=2&include=responses&include=suggestions&include=vectors");
    expect(first.status).toBe(200);
    expect(first.body.items).toHaveLength(2);
    expect(first.body.items[0]!.external_id).toBe("create-1");
    expect(first.body.items[0]!.responses).toHaveLength(1);
    expect(first.body.items[0]!.vectors).toEqual({ [d.vectorName]: [0.1, 0.2, 0.3] });
    const next = await list("?offset=1&limit=1");
    expect(next.body.items[0]!.external_id).toBe("create-2");
    expect(next.body.items[0]).not.toHaveProperty("responses");
    expect(next.body.items[0]).not.toHaveProperty("vectors");
    expect(next.body.total).toBe(first.body.total);
    const named = await list(`?limit=1&include=vectors:${d.vectorName}`);
    expect(named.body.items[0]!.vectors).toEqual({ [d.vectorName]: [0.1, 0.2, 0.3] });
  });

  it("validates paging and include, and is for admins only", async () => {
    expect((await list("?limit=0")).status).toBe(422);
    expect((await list("?limit=1001")).status).toBe(422);
    expect((await list("?offset=-1")).status).toBe(422);
    expect((await list("?limit=abc")).status).toBe(422);
    expect((await list("?include=everything")).status).toBe(422);
    expect((await list(`?include=vectors&include=vectors:${d.vectorName}`)).status).toBe(422);
    expect((await d.f.request("GET", `/datasets/${d.datasetId}/records`, { headers: d.annotator.headers })).status).toBe(403);
    expect((await d.f.request("GET", `/datasets/${d.datasetId}/records`, { headers: d.outsideAdmin.headers })).status).toBe(403);
    expect((await d.f.request("GET", `/datasets/${d.datasetId}/records`, { headers: d.admin.headers })).status).toBe(200);
  });
});

describe("vectors come back exactly as they were sent", () => {
  // Python floats (what the SDK's users log: random.random(), numpy float64), a model's float32
  // embeddings (float64 values that are float32s), rounded values and a mix of all three.
  const float64s = [0.7216326330755638, 0.47112214607399994, 0.14231118562683276];
  const float32s = [Math.fround(0.7216326), Math.fround(-0.33333334), Math.fround(1e-7)];
  const rounded = [0.1, -0.123456, 42.5];
  const mixed = [0.1, Math.fround(0.7216326), 0.7216326330755638];

  it("through the bulk routes, the single record routes and search, on every store", async () => {
    const vectors = [float64s, float32s, rounded, mixed];
    const res = await bulk(
      "POST",
      vectors.map((v, i) => ({ external_id: `exact-${i}`, fields: { text: `exact ${i}` }, vectors: { emb: v } })),
    );
    const ids = (res.body as { items: RecordJson[] }).items.map((r) => r.id);
    for (const [i, id] of ids.entries())
      expect((await d.f.request<RecordJson>("GET", `/records/${id}`)).body.vectors).toEqual({ emb: vectors[i] });
    const listed = (await list(`?include=vectors&limit=1000`)).body.items.filter((r) => ids.includes(r.id));
    expect(listed.map((r) => r.vectors!.emb)).toEqual(vectors);
    const searched = await d.f.request<{ items: { record: RecordJson }[] }>(
      "POST",
      `/datasets/${d.datasetId}/records/search?include=vectors`,
      {
        body: { filters: { and: [{ type: "terms", scope: { entity: "record", property: "id" }, values: ids }] } },
      },
    );
    expect(searched.body.items.map((i) => i.record.vectors!.emb)).toEqual(vectors);
    // Updates keep the exact values too: upsert, PATCH; a later rounded value drops the earlier exact one.
    await bulk("PUT", [{ external_id: "exact-2", vectors: { emb: float64s } }]);
    expect((await d.f.request<RecordJson>("GET", `/records/${ids[2]}`)).body.vectors).toEqual({ emb: float64s });
    await d.f.request("PATCH", `/records/${ids[0]}`, { body: { vectors: { emb: float32s } } });
    expect((await d.f.request<RecordJson>("GET", `/records/${ids[0]}`)).body.vectors).toEqual({ emb: float32s });
    await d.f.request("PATCH", `/records/${ids[0]}`, { body: { vectors: { emb: rounded } } });
    expect((await d.f.request<RecordJson>("GET", `/records/${ids[0]}`)).body.vectors).toEqual({ emb: rounded });
    // Similarity still works on them (float32 search): a record is its own nearest.
    const near = await d.f.request<{ items: { record: RecordJson }[] }>("POST", `/datasets/${d.datasetId}/records/search?limit=1`, {
      body: { query: { vector: { name: "emb", value: mixed } } },
    });
    expect(near.body.items[0]!.record.id).toBe(ids[3]);
  });
});

describe("single record routes", () => {
  it("GET returns responses, suggestions and vectors; annotators may read; unknown and malformed ids", async () => {
    const id = (await list("?limit=1")).body.items[0]!.id;
    const res = await d.f.request<RecordJson>("GET", `/records/${id}`, { headers: d.annotator.headers });
    expect(res.status).toBe(200);
    expect(res.body.responses).toHaveLength(1);
    expect(res.body.suggestions).toHaveLength(1);
    expect(res.body.vectors).toEqual({ [d.vectorName]: [0.1, 0.2, 0.3] });
    expect((await d.f.request("GET", `/records/${id}`, { headers: d.outsideAdmin.headers })).status).toBe(403);
    expect((await d.f.request("GET", `/records/${id}`, { headers: null })).status).toBe(401);
    expect((await d.f.request("GET", "/records/nope")).status).toBe(422);
    expect(await d.f.request("GET", "/records/00000000-0000-4000-8000-000000000000")).toEqual({
      status: 404,
      body: { detail: "Record with id `00000000-0000-4000-8000-000000000000` not found" },
    });
  });

  it("PATCH replaces metadata and all suggestions, upserts vectors, never changes fields", async () => {
    const created = (
      (
        await bulk("POST", [
          {
            external_id: "patch-1",
            fields: { text: "patch me" },
            metadata: { genre: "news" },
            suggestions: [{ question_id: d.questions.label.id, value: "neutral" }],
          },
        ])
      ).body as { items: RecordJson[] }
    ).items[0]!;
    const res = await d.f.request<RecordJson>("PATCH", `/records/${created.id}`, {
      body: {
        fields: { text: "no" },
        metadata: { quality: 0.25 },
        suggestions: [{ question_id: d.questions.multi.id, value: ["a", "b"], score: [0.1, 0.2] }],
        vectors: { emb: [0, 1, 0] },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ fields: { text: "patch me" }, metadata: { quality: 0.25 }, vectors: { emb: [0, 1, 0] } });
    expect(res.body.suggestions!.map((s) => s.value)).toEqual([["a", "b"]]);
    const bad = await d.f.request("PATCH", `/records/${created.id}`, { body: { metadata: { genre: "poetry" } } });
    expect(bad.status).toBe(422);
    expect((bad.body as { detail: string }).detail).toContain("'poetry' is not an allowed term.");
    expect((await d.f.request("PATCH", `/records/${created.id}`, { body: { metadata: {} }, headers: d.annotator.headers })).status).toBe(
      403,
    );
    expect((await d.f.request("PATCH", `/records/${created.id}`, { body: "{oops" })).status).toBe(422);
  });

  it("DELETE returns the record; delete-many validates ids and ignores unknown ones", async () => {
    const items = ((await bulk("POST", recordItems(3, "del"))).body as { items: RecordJson[] }).items;
    expect((await d.f.request("DELETE", `/records/${items[0]!.id}`, { headers: d.annotator.headers })).status).toBe(403);
    const del = await d.f.request<RecordJson>("DELETE", `/records/${items[0]!.id}`);
    expect(del.status).toBe(200);
    expect(del.body.id).toBe(items[0]!.id);
    expect((await d.f.request("GET", `/records/${items[0]!.id}`)).status).toBe(404);
    const path = `/datasets/${d.datasetId}/records`;
    expect(await d.f.request("DELETE", `${path}?ids=`)).toEqual({ status: 422, body: { detail: "No record IDs provided" } });
    const many = Array.from({ length: 101 }, (_, i) => `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`).join(",");
    expect(await d.f.request("DELETE", `${path}?ids=${many}`)).toEqual({
      status: 422,
      body: { detail: "Cannot delete more than 100 records at once" },
    });
    expect((await d.f.request("DELETE", `${path}?ids=bad`)).status).toBe(422);
    expect((await d.f.request("DELETE", `${path}?ids=${items[1]!.id}`, { headers: d.annotator.headers })).status).toBe(403);
    const ok = await d.f.request("DELETE", `${path}?ids=${items[1]!.id},${items[2]!.id},00000000-0000-4000-8000-000000000000`);
    expect(ok.status).toBe(204);
    expect((await d.f.request("GET", `/records/${items[2]!.id}`)).status).toBe(404);
  });
});
