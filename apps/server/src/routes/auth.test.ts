import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server.stop();
});

const post = (path: string, body: string | URLSearchParams, headers: Record<string, string> = {}) =>
  fetch(`${server.url}${path}`, { method: "POST", body, headers });

describe("POST /api/v1/token", () => {
  it("issues a bearer token for the bootstrapped owner, usable on /me", async () => {
    const res = await post("/api/v1/token", new URLSearchParams({ username: "owner", password: server.ownerPassword }));
    expect(res.status).toBe(200);
    const body = (await res.json()) as { access_token: string; token_type: string };
    expect(body.token_type).toBe("bearer");
    const me = await fetch(`${server.url}/api/v1/me`, { headers: { authorization: `Bearer ${body.access_token}` } });
    expect(me.status).toBe(200);
    const user = (await me.json()) as Record<string, unknown>;
    expect(user).toMatchObject({ username: "owner", role: "owner" });
    // No api_key: keys are stored as digests and shown once, when created or rotated.
    expect(Object.keys(user).sort()).toEqual(["first_name", "id", "inserted_at", "last_name", "role", "updated_at", "username"]);
  });

  it("accepts the API key header", async () => {
    const res = await fetch(`${server.url}/api/v1/me`, { headers: { "x-argilla-api-key": server.owner!.apiKey } });
    expect(res.status).toBe(200);
  });

  it.each([
    ["a wrong password", { username: "owner", password: "wrong-password" }],
    ["an unknown user", { username: "nobody", password: "whatever-password" }],
  ])("refuses %s with the contract's 401", async (_label, form) => {
    const res = await post("/api/v1/token", new URLSearchParams(form));
    expect(res.status).toBe(401);
    expect(await res.json()).toEqual({
      detail: { code: "argilla.api.errors::UnauthorizedError", params: { detail: "Could not validate credentials" } },
    });
  });

  it("refuses a missing field with a legacy 422 naming the field", async () => {
    const res = await post("/api/v1/token", new URLSearchParams({ username: "owner" }));
    expect(res.status).toBe(422);
    const body = (await res.json()) as { detail: { code: string; params: { errors: { loc: string[] }[] } } };
    expect(body.detail.code).toBe("argilla.api.errors::ValidationError");
    expect(body.detail.params.errors[0]!.loc).toEqual(["body", "password"]);
  });

  it("refuses a malformed JSON body with 422, never 500", async () => {
    const res = await post("/api/v1/token", "{not json", { "content-type": "application/json" });
    expect(res.status).toBe(422);
  });

  it("refuses an unsupported media type with 415", async () => {
    const res = await post("/api/v1/token", "username=owner", { "content-type": "text/weird" });
    expect(res.status).toBe(415);
  });
});

describe("authenticated routes", () => {
  it("answer 401 without credentials and with a forged token", async () => {
    expect((await fetch(`${server.url}/api/v1/me`)).status).toBe(401);
    const forged = await fetch(`${server.url}/api/v1/me`, {
      headers: { authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJ1c2VybmFtZSI6Im93bmVyIn0.bad" },
    });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ detail: { params: { detail: "Invalid token" } } });
  });

  it("GET /me/datasets lists datasets (empty at first)", async () => {
    const res = await fetch(`${server.url}/api/v1/me/datasets`, { headers: server.ownerHeaders });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ items: [] });
  });

  it("GET /settings is public", async () => {
    const res = await fetch(`${server.url}/api/v1/settings`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ argilla: { show_huggingface_space_persistent_storage_warning: null } });
  });

  it("unknown API paths give a JSON 404", async () => {
    const res = await fetch(`${server.url}/api/v1/nothing-here`);
    expect(res.status).toBe(404);
  });
});
