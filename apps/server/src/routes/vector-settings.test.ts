import { describe, expect, it } from "vitest";
import { FORBIDDEN, MISSING, serverForFile, type Json, type ValidationBody } from "../testing/fixtures.js";

const fx = serverForFile();

describe("vectors settings", () => {
  it("creates (201, also on published datasets), lists, 409 on duplicates, max 5 per dataset", async () => {
    const { datasetId } = await fx.readyDataset();
    const res = await fx.request("POST", `/datasets/${datasetId}/vectors-settings`, {
      body: { name: "Emb", title: "Embedding", dimensions: 384, dataset_id: datasetId, id: null },
    });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["dataset_id", "dimensions", "id", "inserted_at", "name", "title", "updated_at"]);
    expect(res.body).toMatchObject({ name: "Emb", title: "Embedding", dimensions: 384, dataset_id: datasetId });
    expect(
      await fx.request("POST", `/datasets/${datasetId}/vectors-settings`, { body: { name: "Emb", title: "x", dimensions: 2 } }),
    ).toEqual({
      status: 409,
      body: { detail: `Vector settings with name \`Emb\` already exists for dataset with id \`${datasetId}\`` },
    });
    for (let i = 0; i < 4; i++) await fx.vectorSettings(datasetId);
    expect(
      await fx.request("POST", `/datasets/${datasetId}/vectors-settings`, { body: { name: "sixth", title: "x", dimensions: 2 } }),
    ).toEqual({
      status: 422,
      body: { detail: `The maximum number of vector settings has been reached for dataset with id \`${datasetId}\`` },
    });
    const list = await fx.ok<{ items: Json[] }>("GET", `/datasets/${datasetId}/vectors-settings`);
    expect(list.items).toHaveLength(5);
    expect(list.items[0]).toEqual(res.body);
  });

  it.each([
    [{ title: "t", dimensions: 3 }, "name"],
    [{ name: "n".repeat(201), title: "t", dimensions: 3 }, "name"],
    [{ name: "n", dimensions: 3 }, "title"],
    [{ name: "n", title: "t", dimensions: 0 }, "dimensions"],
    [{ name: "n", title: "t", dimensions: -3 }, "dimensions"],
    [{ name: "n", title: "t", dimensions: 2.5 }, "dimensions"],
    [{ name: "n", title: "t", dimensions: "3" }, "dimensions"],
  ])("refuses %j with the legacy 422", async (body, key) => {
    const ds = await fx.dataset((await fx.workspace()).id);
    const res = await fx.request<ValidationBody>("POST", `/datasets/${ds.id}/vectors-settings`, { body });
    expect(res.status).toBe(422);
    expect(res.body.detail.params.errors[0]!.loc[1]).toBe(key);
  });

  it("PATCH updates only the title, refuses null; DELETE removes; unknown 404; malformed 422", async () => {
    const ds = await fx.dataset((await fx.workspace()).id);
    const vs = await fx.vectorSettings(ds.id);
    expect(await fx.ok("PATCH", `/vectors-settings/${vs.id}`, { title: "New", name: "ignored", dimensions: 99 }, 200)).toMatchObject({
      title: "New",
      name: vs.name,
      dimensions: 3,
    });
    const nulls = await fx.request<ValidationBody>("PATCH", `/vectors-settings/${vs.id}`, { body: { title: null } });
    expect(nulls.body.detail.params.errors[0]!.msg).toBe("The following keys must have non-null values: title");
    expect(await fx.ok("DELETE", `/vectors-settings/${vs.id}`)).toMatchObject({ id: vs.id });
    expect(await fx.request("DELETE", `/vectors-settings/${vs.id}`)).toEqual({
      status: 404,
      body: { detail: `Vector settings with id \`${vs.id}\` not found` },
    });
    expect((await fx.request("PATCH", `/vectors-settings/${MISSING}`, { body: { title: "x" } })).status).toBe(404);
    expect((await fx.request("PATCH", "/vectors-settings/abc", { body: { title: "x" } })).status).toBe(422);
  });

  it("members read; only owners and admin members write", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    const vs = await fx.vectorSettings(ds.id);
    const admin = await fx.member(ws.id, "admin");
    const annotator = await fx.member(ws.id);
    const outsider = await fx.user("admin");
    expect((await fx.request("GET", `/datasets/${ds.id}/vectors-settings`, { headers: annotator.headers })).status).toBe(200);
    expect((await fx.request("GET", `/datasets/${ds.id}/vectors-settings`, { headers: outsider.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("GET", `/datasets/${ds.id}/vectors-settings`, { headers: null })).status).toBe(401);
    for (const actor of [annotator, outsider]) {
      expect(
        (
          await fx.request("POST", `/datasets/${ds.id}/vectors-settings`, {
            headers: actor.headers,
            body: { name: "n", title: "t", dimensions: 2 },
          })
        ).body,
      ).toEqual(FORBIDDEN);
      expect((await fx.request("PATCH", `/vectors-settings/${vs.id}`, { headers: actor.headers, body: { title: "x" } })).body).toEqual(
        FORBIDDEN,
      );
      expect((await fx.request("DELETE", `/vectors-settings/${vs.id}`, { headers: actor.headers })).body).toEqual(FORBIDDEN);
    }
    expect((await fx.request("PATCH", `/vectors-settings/${vs.id}`, { headers: admin.headers, body: { title: "x" } })).status).toBe(200);
  });
});
