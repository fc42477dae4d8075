import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { describe, expect, it } from "vitest";
import {
  FORBIDDEN,
  MISSING,
  serverForFile,
  UNAUTHORIZED,
  uniqueName,
  type Items,
  type Json,
  type ValidationBody,
} from "../testing/fixtures.js";
import { now } from "../clock.js";

const fx = serverForFile();

const DATASET_KEYS = [
  "allow_extra_metadata",
  "distribution",
  "guidelines",
  "id",
  "inserted_at",
  "last_activity_at",
  "metadata",
  "name",
  "status",
  "updated_at",
  "workspace_id",
];

/** Inserts a record (and optionally a response) straight into the store, as the records routes would. */
async function seedRecord(datasetId: string, withResponseBy?: string): Promise<string> {
  const id = randomUUID();
  const t = now();
  await sql`insert into records (id, dataset_id, fields, metadata, status, inserted_at, updated_at) values (${id}, ${datasetId}, '{}', null, 'pending', ${t}, ${t})`.execute(
    fx.server.ctx.db,
  );
  if (withResponseBy) {
    await sql`insert into responses (id, record_id, user_id, status, "values", inserted_at, updated_at) values (${randomUUID()}, ${id}, ${withResponseBy}, 'submitted', '{}', ${t}, ${t})`.execute(
      fx.server.ctx.db,
    );
  }
  return id;
}

describe("POST /datasets", () => {
  it("creates a draft with the contract defaults, ignoring extra keys", async () => {
    const ws = await fx.workspace();
    const name = uniqueName("ds");
    const res = await fx.request("POST", "/datasets", { body: { name, workspace_id: ws.id, id: null, status: "ready" } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(DATASET_KEYS);
    expect(res.body).toMatchObject({
      name,
      status: "draft",
      guidelines: null,
      allow_extra_metadata: true,
      metadata: null,
      workspace_id: ws.id,
      distribution: { strategy: "overlap", min_submitted: 1 },
    });
    const full = await fx.ok("POST", "/datasets", {
      name: uniqueName("ds"),
      workspace_id: ws.id,
      guidelines: "Be kind",
      allow_extra_metadata: false,
      distribution: { strategy: "overlap", min_submitted: 3 },
      metadata: { repoId: "org/repo", imported: "UI" },
    });
    expect(full).toMatchObject({
      guidelines: "Be kind",
      allow_extra_metadata: false,
      distribution: { min_submitted: 3 },
      metadata: { repoId: "org/repo" },
    });
  });

  it("409 on a duplicate name in the workspace, fine in another workspace", async () => {
    const [ws1, ws2] = [await fx.workspace(), await fx.workspace()];
    const ds = await fx.dataset(ws1.id);
    expect(await fx.request("POST", "/datasets", { body: { name: ds.name, workspace_id: ws1.id } })).toEqual({
      status: 409,
      body: { detail: `Dataset with name \`${ds.name}\` already exists for workspace with id \`${ws1.id}\`` },
    });
    expect((await fx.request("POST", "/datasets", { body: { name: ds.name, workspace_id: ws2.id } })).status).toBe(201);
  });

  it("422 (flat) on an unknown workspace for the owner, 403 for an admin", async () => {
    expect(await fx.request("POST", "/datasets", { body: { name: "x", workspace_id: MISSING } })).toEqual({
      status: 422,
      body: { detail: `Workspace with id \`${MISSING}\` not found` },
    });
    const admin = await fx.user("admin");
    expect((await fx.request("POST", "/datasets", { headers: admin.headers, body: { name: "x", workspace_id: MISSING } })).body).toEqual(
      FORBIDDEN,
    );
  });

  it.each([
    [{ workspace_id: MISSING }, "name"],
    [{ name: "", workspace_id: MISSING }, "name"],
    [{ name: "x".repeat(201), workspace_id: MISSING }, "name"],
    [{ name: "x" }, "workspace_id"],
    [{ name: "x", workspace_id: "nope" }, "workspace_id"],
    [{ name: "x", workspace_id: MISSING, guidelines: "" }, "guidelines"],
    [{ name: "x", workspace_id: MISSING, guidelines: "g".repeat(10001) }, "guidelines"],
    [{ name: "x", workspace_id: MISSING, allow_extra_metadata: "yes" }, "allow_extra_metadata"],
    [{ name: "x", workspace_id: MISSING, distribution: { strategy: "overlap", min_submitted: 0 } }, "distribution"],
    [{ name: "x", workspace_id: MISSING, distribution: { strategy: "round_robin", min_submitted: 1 } }, "distribution"],
  ])("refuses %j with the legacy 422 naming %s", async (body, field) => {
    const res = await fx.request<ValidationBody>("POST", "/datasets", { body });
    expect(res.status).toBe(422);
    expect(res.body.detail.code).toBe("argilla.api.errors::ValidationError");
    expect(res.body.detail.params.errors[0]!.loc[1]).toBe(field);
  });

  it("lets admin members create, refuses annotators, outsiders and anonymous callers", async () => {
    const ws = await fx.workspace();
    const admin = await fx.member(ws.id, "admin");
    const annotator = await fx.member(ws.id, "annotator");
    const outsider = await fx.user("admin");
    expect(
      (await fx.request("POST", "/datasets", { headers: admin.headers, body: { name: uniqueName(), workspace_id: ws.id } })).status,
    ).toBe(201);
    expect(
      (await fx.request("POST", "/datasets", { headers: annotator.headers, body: { name: uniqueName(), workspace_id: ws.id } })).body,
    ).toEqual(FORBIDDEN);
    expect(
      (await fx.request("POST", "/datasets", { headers: outsider.headers, body: { name: uniqueName(), workspace_id: ws.id } })).body,
    ).toEqual(FORBIDDEN);
    expect((await fx.request("POST", "/datasets", { headers: null, body: { name: uniqueName(), workspace_id: ws.id } })).body).toEqual(
      UNAUTHORIZED,
    );
  });
});

describe("GET /datasets/{id}", () => {
  it("members read; outsiders 403; unknown 404; malformed 422", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    const annotator = await fx.member(ws.id);
    const outsider = await fx.user("admin");
    expect(await fx.ok("GET", `/datasets/${ds.id}`, undefined, 200, annotator.headers)).toMatchObject({ id: ds.id });
    expect((await fx.request("GET", `/datasets/${ds.id}`, { headers: outsider.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("GET", `/datasets/${ds.id}`, { headers: null })).status).toBe(401);
    expect(await fx.request("GET", `/datasets/${MISSING}`)).toEqual({
      status: 404,
      body: { detail: `Dataset with id \`${MISSING}\` not found` },
    });
    expect((await fx.request<ValidationBody>("GET", "/datasets/x")).body.detail.params.errors[0]!.loc).toEqual(["path", "dataset_id"]);
  });
});

describe("PATCH /datasets/{id}", () => {
  it("applies the SDK's full-model body, ignoring unknown keys", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    const res = await fx.ok(
      "PATCH",
      `/datasets/${ds.id}`,
      {
        id: ds.id,
        name: ds.name,
        guidelines: "Read me",
        allow_extra_metadata: false,
        distribution: { strategy: "overlap", min_submitted: 2 },
        status: "ready",
      },
      200,
    );
    expect(res).toMatchObject({
      guidelines: "Read me",
      allow_extra_metadata: false,
      distribution: { strategy: "overlap", min_submitted: 2 },
      status: "draft",
    });
    expect(await fx.ok("PATCH", `/datasets/${ds.id}`, { guidelines: null, metadata: null }, 200)).toMatchObject({
      guidelines: null,
      allow_extra_metadata: false,
    });
    expect(await fx.ok("GET", `/datasets/${ds.id}`)).toMatchObject({ allow_extra_metadata: false, distribution: { min_submitted: 2 } });
  });

  it("refuses nulls for name, allow_extra_metadata, distribution with the contract message", async () => {
    const ds = await fx.dataset((await fx.workspace()).id);
    const res = await fx.request<ValidationBody>("PATCH", `/datasets/${ds.id}`, {
      body: { name: null, allow_extra_metadata: null, distribution: null },
    });
    expect(res.status).toBe(422);
    expect(res.body.detail.params.errors[0]!.msg).toBe(
      "The following keys must have non-null values: name, allow_extra_metadata, distribution",
    );
  });

  it("409 when renamed to a taken name", async () => {
    const ws = await fx.workspace();
    const [a, b] = [await fx.dataset(ws.id), await fx.dataset(ws.id)];
    expect((await fx.request("PATCH", `/datasets/${a.id}`, { body: { name: b.name } })).status).toBe(409);
  });

  it("refuses a distribution change once responses exist, with the business error shape", async () => {
    const { datasetId } = await fx.readyDataset();
    const owner = await fx.ok<{ id: string }>("GET", "/me");
    await seedRecord(datasetId);
    expect(
      (await fx.request("PATCH", `/datasets/${datasetId}`, { body: { distribution: { strategy: "overlap", min_submitted: 2 } } })).status,
    ).toBe(200);
    await seedRecord(datasetId, owner.id);
    const res = await fx.request("PATCH", `/datasets/${datasetId}`, { body: { distribution: { strategy: "overlap", min_submitted: 3 } } });
    expect(res).toEqual({
      status: 422,
      body: {
        code: "update_distribution_with_existing_responses",
        message: "Distribution settings cannot be modified for a published dataset with responses",
      },
    });
    // Re-sending the same distribution (the SDK sends the whole model) is not a change.
    expect(
      (
        await fx.request("PATCH", `/datasets/${datasetId}`, {
          body: { distribution: { strategy: "overlap", min_submitted: 2 }, guidelines: "ok" },
        })
      ).status,
    ).toBe(200);
  });

  it("is for owners and admin members only", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    const admin = await fx.member(ws.id, "admin");
    const annotator = await fx.member(ws.id);
    const outsider = await fx.user("admin");
    expect((await fx.request("PATCH", `/datasets/${ds.id}`, { headers: admin.headers, body: { guidelines: "x" } })).status).toBe(200);
    expect((await fx.request("PATCH", `/datasets/${ds.id}`, { headers: annotator.headers, body: { guidelines: "x" } })).body).toEqual(
      FORBIDDEN,
    );
    expect((await fx.request("PATCH", `/datasets/${ds.id}`, { headers: outsider.headers, body: { guidelines: "x" } })).body).toEqual(
      FORBIDDEN,
    );
    expect((await fx.request("PATCH", `/datasets/${ds.id}`, { headers: null, body: { guidelines: "x" } })).status).toBe(401);
  });
});

describe("PUT /datasets/{id}/publish", () => {
  it("needs a field (required or not) and a required question, then refuses a second publish", async () => {
    const ds = await fx.dataset((await fx.workspace()).id);
    const publish = () => fx.request("PUT", `/datasets/${ds.id}/publish`);
    expect(await publish()).toEqual({ status: 422, body: { detail: "Dataset cannot be published without fields" } });
    await fx.field(ds.id, { required: false });
    await fx.question(ds.id, { required: false });
    expect(await publish()).toEqual({ status: 422, body: { detail: "Dataset cannot be published without required questions" } });
    await fx.question(ds.id);
    const ready = await publish();
    expect(ready.status).toBe(200);
    expect(ready.body).toMatchObject({ id: ds.id, status: "ready" });
    expect(await publish()).toEqual({ status: 422, body: { detail: "Dataset is already published" } });
  });

  it("publishes a dataset whose only field is an optional chat field, which then takes records", async () => {
    const ds = await fx.dataset((await fx.workspace()).id);
    await fx.field(ds.id, { name: "chat", required: false, settings: { type: "chat" } });
    await fx.question(ds.id, { settings: { type: "text" } });
    expect((await fx.request("PUT", `/datasets/${ds.id}/publish`)).body).toMatchObject({ status: "ready" });
    const res = await fx.request<{ items: { fields: Json }[] }>("POST", `/datasets/${ds.id}/records/bulk`, {
      body: { items: [{ fields: { chat: [{ role: "user", content: "Hello" }] } }] },
    });
    expect(res.status).toBe(201);
    expect(res.body.items[0]!.fields).toEqual({ chat: [{ role: "user", content: "Hello" }] });
    expect((await fx.request("POST", `/datasets/${ds.id}/records/bulk`, { body: { items: [{ fields: {} }] } })).body).toEqual({
      detail: "Record at position 0 is not valid because fields cannot be empty",
    });
  });

  it("is refused to annotators and outsiders", async () => {
    const { datasetId, workspaceId } = await fx.readyDataset({ draft: true });
    const annotator = await fx.member(workspaceId);
    const outsider = await fx.user("admin");
    expect((await fx.request("PUT", `/datasets/${datasetId}/publish`, { headers: annotator.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("PUT", `/datasets/${datasetId}/publish`, { headers: outsider.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("PUT", `/datasets/${datasetId}/publish`, { headers: null })).status).toBe(401);
  });
});

describe("DELETE /datasets/{id}", () => {
  it("deletes the dataset with its settings, records and responses", async () => {
    const { datasetId, workspaceId } = await fx.readyDataset();
    await fx.metadataProperty(datasetId);
    await fx.vectorSettings(datasetId);
    const owner = await fx.ok<{ id: string }>("GET", "/me");
    const recordId = await seedRecord(datasetId, owner.id);
    const annotator = await fx.member(workspaceId);
    expect((await fx.request("DELETE", `/datasets/${datasetId}`, { headers: annotator.headers })).body).toEqual(FORBIDDEN);
    expect(await fx.ok("DELETE", `/datasets/${datasetId}`)).toMatchObject({ id: datasetId });
    expect((await fx.request("GET", `/datasets/${datasetId}`)).status).toBe(404);
    for (const table of ["fields", "questions", "metadata_properties", "vectors_settings", "records"]) {
      const { rows } = await sql<{ n: number }>`select count(*) as n from ${sql.table(table)} where dataset_id = ${datasetId}`.execute(
        fx.server.ctx.db,
      );
      expect(rows[0]!.n, table).toBe(0);
    }
    const { rows } = await sql<{ n: number }>`select count(*) as n from responses where record_id = ${recordId}`.execute(fx.server.ctx.db);
    expect(rows[0]!.n).toBe(0);
  });
});

describe("GET /me/datasets", () => {
  it("lists visible datasets in insertion order with workspace_id, name and status filters", async () => {
    const [ws1, ws2] = [await fx.workspace(), await fx.workspace()];
    const a = await fx.dataset(ws1.id);
    const b = await fx.dataset(ws1.id);
    const c = await fx.dataset(ws2.id);
    const member = await fx.member(ws1.id);
    const mine = await fx.ok<Items>("GET", "/me/datasets", undefined, 200, member.headers);
    expect(mine.items.map((d) => d.id)).toEqual([a.id, b.id]);
    expect((await fx.ok<Items>("GET", `/me/datasets?workspace_id=${ws2.id}`)).items.map((d) => d.id)).toEqual([c.id]);
    expect((await fx.ok<Items>("GET", `/me/datasets?name=${b.name}`)).items.map((d) => d.id)).toEqual([b.id]);
    expect((await fx.ok<Items>("GET", `/me/datasets?workspace_id=${ws1.id}&status=ready`)).items).toEqual([]);
    expect((await fx.request("GET", `/me/datasets?workspace_id=${ws2.id}`, { headers: member.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("GET", "/me/datasets?workspace_id=nope")).status).toBe(422);
    expect((await fx.request("GET", "/me/datasets?status=archived")).status).toBe(422);
  });
});

describe("bad input never gives a 500", () => {
  it("malformed JSON, null, arrays and scalars on every write route of the core API answer 422", async () => {
    const { datasetId, workspaceId } = await fx.readyDataset({ draft: true });
    const field = await fx.field(datasetId);
    const question = await fx.question(datasetId);
    const prop = await fx.metadataProperty(datasetId);
    const vs = await fx.vectorSettings(datasetId);
    const user = await fx.user();
    const routes: [string, string][] = [
      ["POST", "/users"],
      ["PATCH", `/users/${user.id}`],
      ["POST", "/workspaces"],
      ["POST", `/workspaces/${workspaceId}/users`],
      ["POST", "/datasets"],
      ["PATCH", `/datasets/${datasetId}`],
      ["POST", `/datasets/${datasetId}/fields`],
      ["PATCH", `/fields/${field.id}`],
      ["POST", `/datasets/${datasetId}/questions`],
      ["PATCH", `/questions/${question.id}`],
      ["POST", `/datasets/${datasetId}/metadata-properties`],
      ["PATCH", `/metadata-properties/${prop.id}`],
      ["POST", `/datasets/${datasetId}/vectors-settings`],
      ["PATCH", `/vectors-settings/${vs.id}`],
    ];
    for (const [method, path] of routes) {
      for (const body of ["{bad json", "null", "[1]", "42", '"text"']) {
        const res = await fx.request(method, path, { body });
        expect(res.status, `${method} ${path} ${body}`).toBe(422);
      }
      const odd = await fx.request(method, path, { body: { settings: { type: { nested: true } }, name: ["x"], title: 7, user_id: {} } });
      expect(odd.status, `${method} ${path} odd types`).toBeLessThan(500);
    }
  });
});
