import { describe, expect, it } from "vitest";
import { FORBIDDEN, MISSING, serverForFile, UNAUTHORIZED, uniqueName, type Items, type ValidationBody } from "../testing/fixtures.js";

const fx = serverForFile();

describe("POST /workspaces", () => {
  it("creates a workspace (201) and refuses a duplicate name (409)", async () => {
    const name = uniqueName("ws");
    const res = await fx.request("POST", "/workspaces", { body: { name, id: null } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.body).sort()).toEqual(["id", "inserted_at", "name", "updated_at"]);
    expect(await fx.request("POST", "/workspaces", { body: { name } })).toEqual({
      status: 409,
      body: { detail: `Workspace name \`${name}\` is not unique` },
    });
  });

  it("keeps an id chosen by the client (the SDK's Workspace(id=...)) and refuses a taken or malformed one", async () => {
    const id = crypto.randomUUID();
    const name = uniqueName("ws-id");
    expect(await fx.request("POST", "/workspaces", { body: { id, name } })).toMatchObject({ status: 201, body: { id, name } });
    expect((await fx.request("GET", `/workspaces/${id}`)).body).toMatchObject({ id, name });
    expect(await fx.request("POST", "/workspaces", { body: { id, name: uniqueName("ws-other") } })).toEqual({
      status: 409,
      body: { detail: `Workspace with id \`${id}\` already exists` },
    });
    const malformed = await fx.request<ValidationBody>("POST", "/workspaces", { body: { id: "nope", name: uniqueName("ws-bad") } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail.params.errors[0]!.loc).toEqual(["body", "id"]);
  });

  it.each([[{}], [{ name: "" }], [{ name: 5 }], [{ name: "x".repeat(201) }]])("refuses %j with the legacy 422", async (body) => {
    const res = await fx.request<ValidationBody>("POST", "/workspaces", { body });
    expect(res.status).toBe(422);
    expect(res.body.detail.params.errors[0]!.loc).toEqual(["body", "name"]);
  });

  it("is owner only", async () => {
    const ws = await fx.workspace();
    for (const role of ["admin", "annotator"] as const) {
      const actor = await fx.member(ws.id, role);
      expect((await fx.request("POST", "/workspaces", { headers: actor.headers, body: { name: uniqueName() } })).body).toEqual(FORBIDDEN);
      expect((await fx.request("DELETE", `/workspaces/${ws.id}`, { headers: actor.headers })).body).toEqual(FORBIDDEN);
    }
    expect((await fx.request("POST", "/workspaces", { headers: null, body: { name: uniqueName() } })).body).toEqual(UNAUTHORIZED);
  });
});

describe("GET /workspaces/{id}", () => {
  it("is open to members only; unknown is 404; malformed is 422", async () => {
    const ws = await fx.workspace();
    const member = await fx.member(ws.id);
    const outsider = await fx.user("admin");
    expect(await fx.ok("GET", `/workspaces/${ws.id}`, undefined, 200, member.headers)).toMatchObject({ id: ws.id, name: ws.name });
    expect((await fx.request("GET", `/workspaces/${ws.id}`, { headers: outsider.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("GET", `/workspaces/${ws.id}`, { headers: null })).status).toBe(401);
    expect(await fx.request("GET", `/workspaces/${MISSING}`)).toEqual({
      status: 404,
      body: { detail: `Workspace with id \`${MISSING}\` not found` },
    });
    expect((await fx.request("GET", "/workspaces/123")).status).toBe(422);
  });
});

describe("DELETE /workspaces/{id}", () => {
  it("deletes an empty workspace and refuses one holding datasets with 409", async () => {
    const ws = await fx.workspace();
    const ds = await fx.dataset(ws.id);
    expect(await fx.request("DELETE", `/workspaces/${ws.id}`)).toEqual({
      status: 409,
      body: { detail: `Cannot delete the workspace ${ws.id}. This workspace has some datasets linked` },
    });
    await fx.ok("DELETE", `/datasets/${ds.id}`);
    expect(await fx.ok("DELETE", `/workspaces/${ws.id}`)).toMatchObject({ id: ws.id });
    expect((await fx.request("GET", `/workspaces/${ws.id}`)).status).toBe(404);
  });
});

describe("workspace members", () => {
  it("adds (201 User), lists, refuses duplicates (409) and unknown users (422), removes (200 User)", async () => {
    const ws = await fx.workspace();
    const user = await fx.user();
    const added = await fx.request("POST", `/workspaces/${ws.id}/users`, { body: { user_id: user.id } });
    expect(added.status).toBe(201);
    expect(added.body).toMatchObject({ id: user.id, username: user.username });
    const dup = await fx.request("POST", `/workspaces/${ws.id}/users`, { body: { user_id: user.id } });
    expect(dup).toEqual({
      status: 409,
      body: { detail: `Workspace user with workspace_id \`${ws.id}\` and user_id \`${user.id}\` is not unique` },
    });
    expect(await fx.request("POST", `/workspaces/${ws.id}/users`, { body: { user_id: MISSING } })).toEqual({
      status: 422,
      body: { detail: `User with id \`${MISSING}\` not found` },
    });
    expect((await fx.request("POST", `/workspaces/${MISSING}/users`, { body: { user_id: user.id } })).status).toBe(404);
    expect((await fx.request("POST", `/workspaces/${ws.id}/users`, { body: { user_id: "nope" } })).status).toBe(422);
    const list = await fx.ok<Items>("GET", `/workspaces/${ws.id}/users`);
    expect(list.items.map((u) => u.id)).toEqual([user.id]);
    expect(await fx.ok("DELETE", `/workspaces/${ws.id}/users/${user.id}`)).toMatchObject({ id: user.id });
    expect((await fx.request("DELETE", `/workspaces/${ws.id}/users/${user.id}`)).status).toBe(404);
    expect((await fx.ok<Items>("GET", `/workspaces/${ws.id}/users`)).items).toEqual([]);
  });

  it("applies contract 1.4: list and remove for admin members, add for owners only", async () => {
    const ws = await fx.workspace();
    const admin = await fx.member(ws.id, "admin");
    const annotator = await fx.member(ws.id, "annotator");
    const outsiderAdmin = await fx.user("admin");
    const other = await fx.member(ws.id, "annotator");
    expect((await fx.request("GET", `/workspaces/${ws.id}/users`, { headers: admin.headers })).status).toBe(200);
    expect((await fx.request("GET", `/workspaces/${ws.id}/users`, { headers: annotator.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("GET", `/workspaces/${ws.id}/users`, { headers: outsiderAdmin.headers })).body).toEqual(FORBIDDEN);
    expect(
      (await fx.request("POST", `/workspaces/${ws.id}/users`, { headers: admin.headers, body: { user_id: outsiderAdmin.id } })).body,
    ).toEqual(FORBIDDEN);
    expect((await fx.request("DELETE", `/workspaces/${ws.id}/users/${other.id}`, { headers: annotator.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("DELETE", `/workspaces/${ws.id}/users/${other.id}`, { headers: outsiderAdmin.headers })).body).toEqual(
      FORBIDDEN,
    );
    expect((await fx.request("DELETE", `/workspaces/${ws.id}/users/${other.id}`, { headers: admin.headers })).status).toBe(200);
    expect((await fx.request("GET", `/workspaces/${ws.id}/users`, { headers: null })).status).toBe(401);
  });

  it("membership drives /me/workspaces isolation", async () => {
    const [ws1, ws2] = [await fx.workspace(), await fx.workspace()];
    const user = await fx.member(ws1.id);
    const mine = await fx.ok<Items>("GET", "/me/workspaces", undefined, 200, user.headers);
    expect(mine.items.map((w) => w.id)).toEqual([ws1.id]);
    const all = await fx.ok<Items>("GET", "/me/workspaces");
    expect(all.items.map((w) => w.id)).toEqual(expect.arrayContaining([ws1.id, ws2.id]));
  });
});
