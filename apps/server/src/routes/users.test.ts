import { describe, expect, it } from "vitest";
import { FORBIDDEN, serverForFile, UNAUTHORIZED, uniqueName, type Json, type ValidationBody } from "../testing/fixtures.js";

const fx = serverForFile();

const USER_KEYS = ["first_name", "id", "inserted_at", "last_name", "role", "updated_at", "username"];

describe("POST /users", () => {
  it("creates an annotator by default with a generated api key, ignoring the SDK's extra keys", async () => {
    const username = uniqueName("Sdk");
    const res = await fx.request("POST", "/users", {
      body: { username, first_name: "  Ada ", last_name: null, password: "12345678", id: null, inserted_at: null, updated_at: null },
    });
    expect(res.status).toBe(201);
    // The new key is in this answer only (it is stored as a digest).
    expect(Object.keys(res.body).sort()).toEqual([...USER_KEYS, "api_key"].sort());
    expect(res.body).toMatchObject({ username, first_name: "Ada", last_name: null, role: "annotator" });
    expect(typeof res.body.api_key).toBe("string");
    const me = await fx.request("GET", "/me", { headers: { "x-argilla-api-key": res.body.api_key as string } });
    expect(me.body).toMatchObject({ username });
    expect((await fx.server.login(username, "12345678")).authorization).toMatch(/^Bearer /);
  });

  it("refuses a duplicate username with 409", async () => {
    const user = await fx.user();
    const res = await fx.request("POST", "/users", { body: { username: user.username, first_name: "x", password: "12345678" } });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ detail: `User username \`${user.username}\` is not unique` });
  });

  it.each([
    ["a username with a leading dash", { username: "-bad", first_name: "x", password: "12345678" }, "username"],
    ["a username with a space", { username: "a b", first_name: "x", password: "12345678" }, "username"],
    ["a short password", { username: "okname", first_name: "x", password: "1234567" }, "password"],
    ["a long password", { username: "okname", first_name: "x", password: "x".repeat(101) }, "password"],
    ["a blank first name", { username: "okname", first_name: "   ", password: "12345678" }, "first_name"],
    ["an unknown role", { username: "okname", first_name: "x", password: "12345678", role: "god" }, "role"],
    ["a missing username", { first_name: "x", password: "12345678" }, "username"],
    ["a wrong type", { username: 12, first_name: "x", password: "12345678" }, "username"],
    ["an oversized username", { username: "a".repeat(10_000), first_name: "x", password: "12345678" }, "username"],
  ])("refuses %s with the legacy 422 naming the field", async (_label, body, field) => {
    const res = await fx.request<ValidationBody>("POST", "/users", { body });
    expect(res.status).toBe(422);
    expect(res.body.detail.code).toBe("argilla.api.errors::ValidationError");
    expect(res.body.detail.params.errors[0]!.loc).toEqual(["body", field]);
  });

  it("keeps an id chosen by the client (the SDK's User(id=...)) and refuses a taken or malformed one", async () => {
    const id = crypto.randomUUID();
    const username = uniqueName("WithId");
    const res = await fx.request("POST", "/users", { body: { id: id.toUpperCase(), username, first_name: "x", password: "12345678" } });
    expect(res).toMatchObject({ status: 201, body: { id, username } });
    expect((await fx.request("GET", `/users/${id}`)).body).toMatchObject({ id, username });
    expect(
      await fx.request("POST", "/users", { body: { id, username: uniqueName("Other"), first_name: "x", password: "12345678" } }),
    ).toEqual({ status: 409, body: { detail: `User with id \`${id}\` already exists` } });
    const malformed = await fx.request<ValidationBody>("POST", "/users", {
      body: { id: "not-a-uuid", username: uniqueName("Bad"), first_name: "x", password: "12345678" },
    });
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail.params.errors[0]!.loc).toEqual(["body", "id"]);
  });

  it("refuses malformed JSON and a non-object body with 422", async () => {
    expect((await fx.request("POST", "/users", { body: "{nope" })).status).toBe(422);
    expect((await fx.request("POST", "/users", { body: "[1,2]" })).status).toBe(422);
  });
});

describe("permissions", () => {
  it("only the owner may list, get, create, update, delete users and list a user's workspaces", async () => {
    const target = await fx.user();
    const ws = await fx.workspace();
    for (const role of ["admin", "annotator"] as const) {
      const actor = await fx.member(ws.id, role);
      for (const [method, path, body] of [
        ["GET", "/users"],
        ["GET", `/users/${target.id}`],
        ["POST", "/users", { username: uniqueName("u"), first_name: "x", password: "12345678" }],
        ["PATCH", `/users/${target.id}`, { first_name: "y" }],
        ["DELETE", `/users/${target.id}`],
        ["GET", `/users/${target.id}/workspaces`],
      ] as [string, string, Json?][]) {
        const res = await fx.request(method, path, { headers: actor.headers, body });
        expect(res.status, `${role} ${method} ${path}`).toBe(403);
        expect(res.body).toEqual(FORBIDDEN);
      }
    }
    const anonymous = await fx.request("GET", "/users", { headers: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual(UNAUTHORIZED);
  });
});

describe("GET /users and /users/{id}", () => {
  it("lists users and gets one; unknown id is 404, malformed id is 422", async () => {
    const user = await fx.user("admin");
    const list = await fx.ok<{ items: Json[] }>("GET", "/users");
    expect(list.items.map((u) => u.username)).toContain(user.username);
    expect(await fx.ok("GET", `/users/${user.id}`)).toMatchObject({ id: user.id, role: "admin" });
    const missing = "00000000-0000-4000-8000-000000000000";
    expect(await fx.request("GET", `/users/${missing}`)).toEqual({
      status: 404,
      body: { detail: `User with id \`${missing}\` not found` },
    });
    const bad = await fx.request<ValidationBody>("GET", "/users/not-a-uuid");
    expect(bad.status).toBe(422);
    expect(bad.body.detail.params.errors[0]!.loc).toEqual(["path", "user_id"]);
  });
});

describe("PATCH /users/{id}", () => {
  it("updates given keys only, rehashes a new password, accepts PUT too", async () => {
    const user = await fx.user();
    const updated = await fx.ok("PATCH", `/users/${user.id}`, { last_name: "Lovelace", role: "admin", password: "new-password" });
    expect(updated).toMatchObject({ username: user.username, last_name: "Lovelace", role: "admin" });
    await fx.server.login(user.username, "new-password");
    expect(await fx.ok("PUT", `/users/${user.id}`, { first_name: "Put" })).toMatchObject({ first_name: "Put", last_name: "Lovelace" });
  });

  it("refuses null for non-nullable keys, and a taken username with 422 (a create answers 409)", async () => {
    const [a, b] = [await fx.user(), await fx.user()];
    const res = await fx.request<ValidationBody>("PATCH", `/users/${a.id}`, { body: { username: null, role: null } });
    expect(res.status).toBe(422);
    expect(res.body.detail.params.errors[0]!.msg).toBe("The following keys must have non-null values: username, role");
    expect(await fx.request("PATCH", `/users/${a.id}`, { body: { username: b.username } })).toEqual({
      status: 422,
      body: { detail: `User username \`${b.username}\` is not unique` },
    });
    expect((await fx.request("GET", `/users/${a.id}`)).body).toMatchObject({ username: a.username });
    expect((await fx.request("PATCH", `/users/${a.id}`, { body: { last_name: null } })).body).toMatchObject({ last_name: null });
  });
});

describe("DELETE /users/{id}", () => {
  it("returns the deleted user; its key stops working; deleting yourself is refused", async () => {
    const user = await fx.user();
    expect(await fx.ok("DELETE", `/users/${user.id}`)).toMatchObject({ id: user.id });
    expect((await fx.request("GET", "/me", { headers: user.headers })).status).toBe(401);
    expect((await fx.request("DELETE", `/users/${user.id}`)).status).toBe(404);
    const me = await fx.ok<{ id: string }>("GET", "/me");
    expect((await fx.request("DELETE", `/users/${me.id}`)).status).toBe(422);
  });
});

describe("GET /users/{id}/workspaces", () => {
  it("lists the member's workspaces, and every workspace for an owner", async () => {
    const [ws1, ws2] = [await fx.workspace(), await fx.workspace()];
    const user = await fx.member(ws1.id);
    const own = await fx.ok<{ items: Json[] }>("GET", `/users/${user.id}/workspaces`);
    expect(own.items.map((w) => w.id)).toEqual([ws1.id]);
    const owner = await fx.user("owner");
    const all = await fx.ok<{ items: Json[] }>("GET", `/users/${owner.id}/workspaces`);
    expect(all.items.map((w) => w.id)).toEqual(expect.arrayContaining([ws1.id, ws2.id]));
  });
});

describe("POST /users/{id}/api-key (Tessera extension)", () => {
  it("lets a user regenerate their own key, the owner anyone's, and nobody else", async () => {
    const [a, b] = [await fx.user(), await fx.user("admin")];
    const own = await fx.ok<{ api_key: string }>("POST", `/users/${a.id}/api-key`, undefined, 200, a.headers);
    expect(own.api_key).not.toBe(a.apiKey);
    expect((await fx.request("GET", "/me", { headers: a.headers })).status).toBe(401);
    expect((await fx.request("GET", "/me", { headers: { "x-argilla-api-key": own.api_key } })).status).toBe(200);
    expect((await fx.request("POST", `/users/${a.id}/api-key`, { headers: b.headers })).body).toEqual(FORBIDDEN);
    expect((await fx.request("POST", `/users/${b.id}/api-key`)).status).toBe(200);
  });
});
