import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import { FORBIDDEN, MISSING, serverForFile, type Items, type Json, type ValidationBody } from "../testing/fixtures.js";
import { now } from "../clock.js";

const fx = serverForFile();

async function seedMetadata(datasetId: string, metadata: Json | null): Promise<void> {
  const t = now();
  await sql`insert into records (id, dataset_id, fields, metadata, status, inserted_at, updated_at)
    values (${randomUUID()}, ${datasetId}, '{}', ${metadata === null ? null : JSON.stringify(metadata)}, 'pending', ${t}, ${t})`.execute(
    fx.server.ctx.db,
  );
}

describe("POST /datasets/{id}/metadata-properties", () => {
  it.each([
    [
      { type: "terms", values: ["a", "b"] },
      { type: "terms", values: ["a", "b"] },
    ],
    [{ type: "terms" }, { type: "terms", values: null }],
    [
      { type: "integer", min: 0, max: 10 },
      { type: "integer", min: 0, max: 10 },
    ],
    [{ type: "integer" }, { type: "integer", min: null, max: null }],
    [
      { type: "float", min: 0.5, max: null },
      { type: "float", min: 0.5, max: null },
    ],
  ])("stores %j", async (settings, expected) => {
    const ds = await fx.dataset((await fx.workspace()).id);
    const res = await fx.request("POST", `/datasets/${ds.id}/metadata-properties`, {
      body: { name: "meta", title: "Meta", settings, dataset_id: ds.id, id: null },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual([
      "dataset_id",
      "id",
      "inserted_at",
      "name",
      "settings",
      "title",
      "updated_at",
      "visible_for_annotators",
    ]);
    expect(res.body).toMatchObject({ name: "meta", title: "Meta", visible_for_annotators: true, settings: expected });
  });

  it("is allowed on published datasets; 409 on duplicates", async () => {
    const { datasetId } = await fx.readyDataset();
    const prop = await fx.metadataProperty(datasetId);
    expect(
      await fx.request("POST", `/datasets/${datasetId}/metadata-properties`, {
        body: { name: prop.name, title: "x", settings: { type: "terms" } },
      }),
    ).toEqual({
      status: 409,
      body: { detail: `Metadata property with name \`${prop.name}\` already exists for dataset with id \`${datasetId}\`` },
    });
  });

  it.each([
    [{ name: "Bad Name", title: "t", settings: { type: "terms" } }, "name", undefined],
    [{ name: "ok", settings: { type: "terms" } }, "title", undefined],
    [{ name: "ok", title: "t", settings: { type: "date" } }, "settings", undefined],
    [{ name: "ok", title: "t", settings: { type: "terms", values: [] } }, "settings", undefined],
    [
      { name: "ok", title: "t", settings: { type: "terms", values: Array.from({ length: 251 }, (_, i) => `v${i}`) } },
      "settings",
      undefined,
    ],
    [{ name: "ok", title: "t", settings: { type: "integer", min: 1.5 } }, "settings", undefined],
    [{ name: "ok", title: "t", settings: { type: "integer", min: 5, max: 1 } }, "settings", "'min' (5) must be lower than 'max' (1)"],
    [{ name: "ok", title: "t", settings: { type: "float", min: 2.5, max: 2.5 } }, "settings", "'min' (2.5) must be lower than 'max' (2.5)"],
    [{ name: "ok", title: "t", settings: { type: "terms" }, visible_for_annotators: "no" }, "visible_for_annotators", undefined],
  ])("refuses %j with the legacy 422", async (body, key, message) => {
    const ds = await fx.dataset((await fx.workspace()).id);
    const res = await fx.request<ValidationBody>("POST", `/datasets/${ds.id}/metadata-properties`, { body });
    expect(res.status).toBe(422);
    expect(res.body.detail.params.errors[0]!.loc[1]).toBe(key);
    if (message) expect(res.body.detail.params.errors[0]!.msg).toBe(message);
  });
});

describe("visibility (contract 1.4)", () => {
  it("hides properties not visible for annotators from annotators, everywhere", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    const visible = await fx.metadataProperty(ds.id);
    const hidden = await fx.metadataProperty(ds.id, { visible_for_annotators: false });
    const admin = await fx.member(ws.id, "admin");
    const annotator = await fx.member(ws.id);
    const outsider = await fx.user("admin");
    const list = (headers?: Record<string, string>) =>
      fx.ok<Items>("GET", `/me/datasets/${ds.id}/metadata-properties`, undefined, 200, headers);
    expect((await list()).items.map((p) => p.id)).toEqual([visible.id, hidden.id]);
    expect((await list(admin.headers)).items.map((p) => p.id)).toEqual([visible.id, hidden.id]);
    expect((await list(annotator.headers)).items.map((p) => p.id)).toEqual([visible.id]);
    expect((await fx.request("GET", `/me/datasets/${ds.id}/metadata-properties`, { headers: outsider.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("GET", `/me/datasets/${ds.id}/metadata-properties`, { headers: null })).status).toBe(401);
    expect((await fx.request("GET", `/metadata-properties/${visible.id}`, { headers: annotator.headers })).status).toBe(200);
    expect((await fx.request("GET", `/metadata-properties/${hidden.id}`, { headers: annotator.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("GET", `/metadata-properties/${hidden.id}/metrics`, { headers: annotator.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("GET", `/metadata-properties/${hidden.id}`, { headers: admin.headers })).status).toBe(200);
    expect((await fx.request("GET", `/metadata-properties/${visible.id}`, { headers: outsider.headers })).body).toEqual(FORBIDDEN);
    // Making it visible shows it to the annotator.
    expect(await fx.ok("PATCH", `/metadata-properties/${hidden.id}`, { visible_for_annotators: true }, 200)).toMatchObject({
      visible_for_annotators: true,
    });
    expect((await list(annotator.headers)).items).toHaveLength(2);
  });
});

describe("PATCH and DELETE /metadata-properties/{id}", () => {
  it("updates title and visibility, refuses nulls, ignores other keys; deletes", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    const prop = await fx.metadataProperty(ds.id);
    expect(
      await fx.ok("PATCH", `/metadata-properties/${prop.id}`, { title: "Renamed", name: "nope", settings: { type: "integer" } }, 200),
    ).toMatchObject({ title: "Renamed", name: prop.name, settings: { type: "terms" } });
    const nulls = await fx.request<ValidationBody>("PATCH", `/metadata-properties/${prop.id}`, {
      body: { title: null, visible_for_annotators: null },
    });
    expect(nulls.body.detail.params.errors[0]!.msg).toBe("The following keys must have non-null values: title, visible_for_annotators");
    const annotator = await fx.member(ws.id);
    expect(
      (await fx.request("PATCH", `/metadata-properties/${prop.id}`, { headers: annotator.headers, body: { title: "x" } })).body,
    ).toEqual(FORBIDDEN);
    expect((await fx.request("DELETE", `/metadata-properties/${prop.id}`, { headers: annotator.headers })).body).toEqual(FORBIDDEN);
    expect(await fx.ok("DELETE", `/metadata-properties/${prop.id}`)).toMatchObject({ id: prop.id });
    expect(await fx.request("GET", `/metadata-properties/${prop.id}`)).toEqual({
      status: 404,
      body: { detail: `Metadata property with id \`${prop.id}\` not found` },
    });
    expect((await fx.request("GET", `/metadata-properties/${MISSING}/metrics`)).status).toBe(404);
    expect((await fx.request("DELETE", "/metadata-properties/x")).status).toBe(422);
  });
});

describe("GET /metadata-properties/{id}/metrics", () => {
  it("counts terms (lists expanded) and takes integer/float min and max from record metadata", async () => {
    const { datasetId } = await fx.readyDataset();
    const terms = await fx.metadataProperty(datasetId, { name: "genre" });
    const ints = await fx.metadataProperty(datasetId, { name: "pages", settings: { type: "integer" } });
    const floats = await fx.metadataProperty(datasetId, { name: "score", settings: { type: "float" } });
    expect(await fx.ok("GET", `/metadata-properties/${terms.id}/metrics`)).toEqual({ type: "terms", total: 0, values: [] });
    expect(await fx.ok("GET", `/metadata-properties/${ints.id}/metrics`)).toEqual({ type: "integer", min: null, max: null });
    await seedMetadata(datasetId, { genre: "news", pages: 3, score: 0.123456789 });
    await seedMetadata(datasetId, { genre: ["news", "sport"], pages: 12, score: -1.5 });
    await seedMetadata(datasetId, { genre: null, pages: "many" });
    await seedMetadata(datasetId, null);
    const other = await fx.readyDataset();
    await seedMetadata(other.datasetId, { genre: "other", pages: 1000 });
    expect(await fx.ok("GET", `/metadata-properties/${terms.id}/metrics`)).toEqual({
      type: "terms",
      total: 2,
      values: [
        { term: "news", count: 2 },
        { term: "sport", count: 1 },
      ],
    });
    expect(await fx.ok("GET", `/metadata-properties/${ints.id}/metrics`)).toEqual({ type: "integer", min: 3, max: 12 });
    expect(await fx.ok("GET", `/metadata-properties/${floats.id}/metrics`)).toEqual({ type: "float", min: -1.5, max: 0.12346 });
  });
});
