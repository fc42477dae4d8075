import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadConfig } from "../config.js";
import { startServer, type RunningServer } from "../server.js";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { Fixtures } from "../testing/fixtures.js";
import { API_CSP, CUSTOM_FIELD_FRAME_CSP } from "./headers.js";
import { CUSTOM_FIELD_FRAME_PATH, RATE_LIMITED } from "./index.js";
import SQLite from "better-sqlite3";
import { Kysely, SqliteDialect } from "kysely";
import { Migrator } from "kysely/migration";
import { migrationProvider } from "../db/migrations/index.js";
import { hashApiKey } from "../auth/api-keys.js";
import type { TokenClaims } from "../auth/tokens.js";

const OWNER_PASSWORD = "owner-password-1";

/** A real server on loopback with its own (or a given) data directory and environment. */
async function boot(
  env: Record<string, string> = {},
  dataDir = mkdtempSync(join(tmpdir(), "tessera-sec-")),
  webDist: string | null = null,
): Promise<RunningServer & { dataDir: string }> {
  const config = { ...loadConfig({ TESSERA_OWNER_PASSWORD: OWNER_PASSWORD, ...env }, []), dataDir, port: 0, host: "127.0.0.1", webDist };
  return { ...(await startServer(config)), dataDir };
}

const login = (url: string, username: string, password: string, headers: Record<string, string> = {}) =>
  fetch(`${url}/api/v1/token`, { method: "POST", body: new URLSearchParams({ username, password }), headers });

async function token(url: string, username = "owner", password = OWNER_PASSWORD): Promise<string> {
  const res = await login(url, username, password);
  expect(res.status).toBe(200);
  return ((await res.json()) as { access_token: string }).access_token;
}

const me = (url: string, headers: Record<string, string>) => fetch(`${url}/api/v1/me`, { headers });

describe("security headers", () => {
  let server: RunningServer & { dataDir: string };
  let web: string;
  beforeAll(async () => {
    web = mkdtempSync(join(tmpdir(), "tessera-web-"));
    writeFileSync(join(web, "index.html"), "<!doctype html><title>t</title><div id=root></div>");
    server = await boot({}, undefined, web);
  });
  afterAll(async () => {
    await server.close();
    rmSync(server.dataDir, { recursive: true, force: true });
    rmSync(web, { recursive: true, force: true });
  });

  it("serves the web app with a strict CSP: no inline script, no eval, https/data images, sandboxed custom-field frames, same-origin framing", async () => {
    for (const path of ["/", "/dataset/abc/annotation-mode", "/index.html"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(200);
      const csp = res.headers.get("content-security-policy") ?? "";
      const directives = new Map(
        csp
          .split(";")
          .map((d) => d.trim().split(/\s+/))
          .map(([name, ...values]) => [name ?? "", values]),
      );
      expect(directives.get("script-src")).toEqual(["'self'"]);
      expect(directives.get("default-src")).toEqual(["'self'"]);
      expect(directives.get("object-src")).toEqual(["'self'", "data:", "blob:", "https:"]);
      expect(directives.get("img-src")).toEqual(expect.arrayContaining(["https:", "data:"]));
      expect(directives.get("frame-src")).toEqual(["'self'"]);
      expect(directives.get("frame-ancestors")).toEqual(["'self'"]);
      expect(csp).not.toContain("unsafe-eval");
      expect(directives.get("script-src")?.join(" ")).not.toMatch(/unsafe/);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("x-frame-options")).toBe("SAMEORIGIN");
    }
  });

  it("gives API answers (success, 401, 404) a CSP that loads nothing and forbids framing", async () => {
    for (const [path, status] of [
      ["/api/v1/settings", 200],
      ["/api/v1/me", 401],
      ["/api/v1/nope", 404],
    ] as const) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status).toBe(status);
      expect(res.headers.get("content-security-policy")).toBe(API_CSP);
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    }
  });

  it("serves the custom-field frame as its own sandboxed opaque origin", async () => {
    const res = await fetch(`${server.url}${CUSTOM_FIELD_FRAME_PATH}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^text\/html/);
    expect(res.headers.get("content-security-policy")).toBe(CUSTOM_FIELD_FRAME_CSP);
    expect(CUSTOM_FIELD_FRAME_CSP).toMatch(/^sandbox allow-scripts;/);
    expect(CUSTOM_FIELD_FRAME_CSP).not.toMatch(/allow-same-origin/);
  });

  it("sends no HSTS over plain HTTP, and ignores X-Forwarded-Proto unless the proxy is trusted", async () => {
    const res = await fetch(`${server.url}/api/v1/settings`, { headers: { "x-forwarded-proto": "https" } });
    expect(res.headers.get("strict-transport-security")).toBeNull();
  });

  it("sends HSTS behind a trusted TLS proxy, and allows the hosted-space or configured embedders", async () => {
    const proxied = await boot({ TESSERA_TRUST_PROXY: "true", SPACE_ID: "someone/space" }, undefined, web);
    try {
      const tls = await fetch(`${proxied.url}/`, { headers: { "x-forwarded-proto": "https" } });
      expect(tls.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains");
      const plain = await fetch(`${proxied.url}/`);
      expect(plain.headers.get("strict-transport-security")).toBeNull();
      expect(tls.headers.get("content-security-policy")).toContain("frame-ancestors 'self' https://huggingface.co https://*.hf.space");
      expect(tls.headers.get("x-frame-options")).toBeNull();
    } finally {
      await proxied.close();
      rmSync(proxied.dataDir, { recursive: true, force: true });
    }
    const custom = await boot({ TESSERA_FRAME_ANCESTORS: "'none'" }, undefined, web);
    try {
      expect((await fetch(`${custom.url}/`)).headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
    } finally {
      await custom.close();
      rmSync(custom.dataDir, { recursive: true, force: true });
    }
  });
});

describe("login rate limiting", () => {
  let server: TestServer;
  let fx: Fixtures;
  // Loopback is a trusted proxy here, so X-Forwarded-For gives each request the client address it names.
  beforeAll(async () => {
    server = await startTestServer({
      TESSERA_TRUST_PROXY: "127.0.0.1",
      TESSERA_LOGIN_MAX_PER_USER: "3",
      TESSERA_LOGIN_MAX_PER_ADDRESS: "8",
      TESSERA_LOGIN_USER_MAX_DELAY_SECONDS: "1",
      TESSERA_LOGIN_MAX_DELAY_SECONDS: "60",
    });
    fx = new Fixtures(server);
  });
  afterAll(async () => {
    await server.stop();
  });
  const from = (address: string) => ({ "x-forwarded-for": address });
  const wait = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000 + 100));

  it("slows one address guessing one username (the doubling is in login-limiter.test.ts), even for the right password, with the spec's 429", async () => {
    const user = await fx.user("annotator");
    for (let i = 0; i < 3; i++) expect((await login(server.url, user.username, "wrong-password", from("10.1.0.1"))).status).toBe(401);
    const blocked = await login(server.url, user.username, user.password, from("10.1.0.1"));
    expect(blocked.status).toBe(429);
    expect(await blocked.json()).toEqual(RATE_LIMITED);
    expect(Number(blocked.headers.get("retry-after"))).toBe(1);
    await wait(1);
    expect((await login(server.url, user.username, user.password, from("10.1.0.1"))).status).toBe(200);
  });

  it("does not lock the owner out: twelve wrong passwords from elsewhere, then the right one from the owner's address gets in at once", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await login(server.url, "owner", "wrong-password", from("10.2.0.1"))).status);
    expect(statuses.slice(0, 3)).toEqual([401, 401, 401]);
    // Growing delays: the guesser gets at most a few more tries through (a loaded machine may let a 1 s wait pass).
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(5);
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(7);
    expect((await login(server.url, "owner", server.ownerPassword, from("10.2.0.2"))).status).toBe(200);
  });

  it("slows guessing one username from many addresses only for a short wait: the right password from the user's address gets in after it", async () => {
    const user = await fx.user("annotator");
    for (let a = 0; a < 7; a++) for (let i = 0; i < 2; i++) await login(server.url, user.username, "wrong-password", from(`10.3.${a}.1`));
    const res = await login(server.url, user.username, user.password, from("10.3.99.1"));
    // 429 for at most the per-username cap (1 s here; a loaded machine may already be past it), then in.
    if (res.status === 429) {
      expect(Number(res.headers.get("retry-after"))).toBeLessThanOrEqual(1);
      await wait(1);
      expect((await login(server.url, user.username, user.password, from("10.3.99.1"))).status).toBe(200);
    } else {
      expect(res.status).toBe(200);
    }
  });

  it("limits a burst of parallel guesses to the free failures", async () => {
    const user = await fx.user("annotator");
    const statuses = await Promise.all(
      Array.from({ length: 12 }, () => login(server.url, user.username, "wrong-password", from("10.4.0.1")).then((r) => r.status)),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(3);
    expect(statuses.filter((s) => s === 429)).toHaveLength(9);
  });

  it("slows an address that tries many usernames, not the users at other addresses", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 10; i++) statuses.push((await login(server.url, `nobody-${i}`, "wrong-password", from("10.5.0.1"))).status);
    expect(statuses.slice(0, 8).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(8)).toEqual([429, 429]);
    expect((await login(server.url, "owner", server.ownerPassword, from("10.5.0.1"))).status).toBe(429);
    expect((await login(server.url, "owner", server.ownerPassword, from("10.5.0.2"))).status).toBe(200);
  });

  it("never affects API keys and tokens of a throttled user", async () => {
    const user = await fx.user("annotator");
    const bearer = await server.login(user.username, user.password);
    for (let i = 0; i < 6; i++) await login(server.url, user.username, "wrong-password", from("10.6.0.1"));
    expect((await login(server.url, user.username, user.password, from("10.6.0.1"))).status).toBe(429);
    for (const headers of [user.headers, bearer])
      expect((await fetch(`${server.url}/api/v1/me`, { headers: { ...headers, ...from("10.6.0.1") } })).status).toBe(200);
  });

  it("never slows down correct sign-ins", async () => {
    for (let i = 0; i < 12; i++) expect((await login(server.url, "owner", server.ownerPassword, from("10.7.0.1"))).status).toBe(200);
  });

  it("caps the token form at 64 KiB (413)", async () => {
    const res = await login(server.url, "owner", "x".repeat(100 * 1024));
    expect(res.status).toBe(413);
  });
});

describe("tokens, API keys and the signing secret", () => {
  it("refuses a token once TESSERA_AUTH_TOKEN_EXPIRATION has passed", async () => {
    // 3 s: `exp` counts whole seconds from a truncated `iat`, so a 1 s token may expire a millisecond after it is issued
    const server = await boot({ TESSERA_AUTH_TOKEN_EXPIRATION: "3" });
    try {
      const t = await token(server.url);
      expect((await me(server.url, { authorization: `Bearer ${t}` })).status).toBe(200);
      const [, payload] = t.split(".");
      const claims = JSON.parse(Buffer.from(payload ?? "", "base64url").toString()) as { exp: number; iat: number };
      expect(claims.exp - claims.iat).toBe(3);
      await new Promise((r) => setTimeout(r, Math.max(0, claims.exp * 1000 - Date.now()) + 1200));
      const res = await me(server.url, { authorization: `Bearer ${t}` });
      expect(res.status).toBe(401);
      expect(await res.json()).toEqual({ detail: { code: "argilla.api.errors::UnauthorizedError", params: { detail: "Invalid token" } } });
    } finally {
      await server.close();
      rmSync(server.dataDir, { recursive: true, force: true });
    }
  });

  it("keeps tokens valid across a restart (persisted secret), and another installation cannot forge them", async () => {
    const first = await boot();
    const t = await token(first.url);
    await first.close();
    const again = await boot({}, first.dataDir);
    const other = await boot();
    try {
      expect((await me(again.url, { authorization: `Bearer ${t}` })).status).toBe(200);
      // A fresh installation generated its own secret: the token of the first one means nothing there.
      expect((await me(other.url, { authorization: `Bearer ${t}` })).status).toBe(401);
    } finally {
      await again.close();
      await other.close();
      rmSync(first.dataDir, { recursive: true, force: true });
      rmSync(other.dataDir, { recursive: true, force: true });
    }
  });

  it("uses the environment secret when set, so replicas (one database) share it; another database's user cannot use it", async () => {
    const secret = "replica-secret-0123456789-abcdefghijklmnopqrstuvwxyz";
    const a = await boot({ TESSERA_AUTH_SECRET_KEY: secret });
    const t = await token(a.url);
    await a.close();
    // Another process on the same database (a replica) with the same secret: the token verifies.
    const b = await boot({ TESSERA_AUTH_SECRET_KEY: secret }, a.dataDir);
    // Another installation with the same secret: its "owner" is another user (another id), so no.
    const c = await boot({ TESSERA_AUTH_SECRET_KEY: secret });
    try {
      expect((await me(b.url, { authorization: `Bearer ${t}` })).status).toBe(200);
      expect((await me(c.url, { authorization: `Bearer ${t}` })).status).toBe(401);
    } finally {
      await b.close();
      await c.close();
      rmSync(a.dataDir, { recursive: true, force: true });
      rmSync(c.dataDir, { recursive: true, force: true });
    }
  });

  it("refuses a token signed with another key or with alg none", async () => {
    const server = await boot();
    try {
      const t = await token(server.url);
      const [header, payload] = t.split(".");
      const none = `${Buffer.from(JSON.stringify({ alg: "none", typ: "JWT" })).toString("base64url")}.${payload}.`;
      expect((await me(server.url, { authorization: `Bearer ${none}` })).status).toBe(401);
      expect((await me(server.url, { authorization: `Bearer ${header}.${payload}.AAAA` })).status).toBe(401);
    } finally {
      await server.close();
      rmSync(server.dataDir, { recursive: true, force: true });
    }
  });

  it("regenerates an API key: the old key is refused at once, the new one works, and nobody else can rotate it", async () => {
    const server = await startTestServer();
    try {
      const fx = new Fixtures(server);
      const alice = await fx.user("annotator");
      const bob = await fx.user("admin");
      expect((await fx.request("POST", `/users/${alice.id}/api-key`, { headers: bob.headers })).status).toBe(403);
      expect((await fx.request("POST", `/users/${alice.id}/api-key`, { headers: null })).status).toBe(401);
      const rotated = await fx.request<{ api_key: string }>("POST", `/users/${alice.id}/api-key`, { headers: alice.headers });
      expect(rotated.status).toBe(200);
      expect(rotated.body.api_key).not.toBe(alice.apiKey);
      expect((await me(server.url, alice.headers)).status).toBe(401);
      expect((await me(server.url, { "x-argilla-api-key": rotated.body.api_key })).status).toBe(200);
      // The owner may rotate anyone's key.
      const byOwner = await fx.request<{ api_key: string }>("POST", `/users/${alice.id}/api-key`);
      expect(byOwner.status).toBe(200);
      expect((await me(server.url, { "x-argilla-api-key": rotated.body.api_key })).status).toBe(401);
    } finally {
      await server.stop();
    }
  });
});

describe("body limits", () => {
  let server: TestServer;
  let fx: Fixtures;
  beforeAll(async () => {
    server = await startTestServer({ TESSERA_ROUTE_BODY_LIMIT: "65536" });
    fx = new Fixtures(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  it("answers 413 for an oversized body on an ordinary route, without storing anything", async () => {
    const before = await fx.ok<{ items: unknown[] }>("GET", "/me/workspaces", undefined, 200);
    const res = await fx.request("POST", "/workspaces", { body: { name: "big", padding: "x".repeat(70 * 1024) } });
    expect(res.status).toBe(413);
    expect(res.body).toEqual({ detail: "Request body is too large" });
    expect((await fx.ok<{ items: unknown[] }>("GET", "/me/workspaces", undefined, 200)).items).toHaveLength(before.items.length);
  });

  it("lets bulk routes take large bodies (server-wide limit)", async () => {
    const { datasetId, fieldName } = await fx.readyDataset();
    const items = Array.from({ length: 200 }, (_, i) => ({ fields: { [fieldName]: `record ${i} ${"y".repeat(500)}` } }));
    const res = await fx.request("POST", `/datasets/${datasetId}/records/bulk`, { body: { items } });
    expect(res.status).toBe(201);
  });
});

describe("sessions end with a password or role change or the user's deletion; API keys are stored as digests (issue 28, finding 7)", () => {
  let server: TestServer;
  let fx: Fixtures;
  beforeAll(async () => {
    server = await startTestServer();
    fx = new Fixtures(server);
  });
  afterAll(async () => {
    await server.stop();
  });

  it("refuses a token issued before the user's password changed, at once; a new sign-in works", async () => {
    const user = await fx.user("annotator");
    const before = await server.login(user.username, user.password);
    const untouched = await server.login((await fx.user("annotator")).username, "password-1234");
    expect((await me(server.url, before)).status).toBe(200);
    await fx.ok("PATCH", `/users/${user.id}`, { first_name: "Renamed" });
    expect((await me(server.url, before)).status).toBe(200); // other changes keep the session
    await fx.ok("PATCH", `/users/${user.id}`, { password: "a-new-password-9" });
    const refused = await me(server.url, before);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({
      detail: { code: "argilla.api.errors::UnauthorizedError", params: { detail: "Invalid token" } },
    });
    expect((await me(server.url, await server.login(user.username, "a-new-password-9"))).status).toBe(200);
    expect((await me(server.url, untouched)).status).toBe(200);
    // The API key is a separate credential, rotated on its own.
    expect((await me(server.url, user.headers)).status).toBe(200);
  });

  it("refuses a token issued before the user's role changed (PATCH and PUT)", async () => {
    for (const method of ["PATCH", "PUT"]) {
      const user = await fx.user("annotator");
      const before = await server.login(user.username, user.password);
      await fx.ok(method, `/users/${user.id}`, { role: "admin" });
      expect((await me(server.url, before)).status).toBe(401);
    }
  });

  it("refuses the tokens of a deleted user, also when a new user takes the same username", async () => {
    const user = await fx.user("annotator");
    const before = await server.login(user.username, user.password);
    await fx.ok("DELETE", `/users/${user.id}`);
    expect((await me(server.url, before)).status).toBe(401);
    await fx.ok("POST", "/users", { username: user.username, first_name: "Again", password: user.password, role: "admin" });
    expect((await me(server.url, before)).status).toBe(401);
    expect((await me(server.url, user.headers)).status).toBe(401);
    // A token of the shape older versions issued (no user id, no session version), signed with this
    // server's own secret, could not be told from one of the deleted user: refused.
    const unversioned = await server.ctx.tokens.sign({ username: user.username, name: "Again", role: "admin" } as unknown as TokenClaims);
    expect((await me(server.url, { authorization: `Bearer ${unversioned}` })).status).toBe(401);
  });

  it("stores API keys as SHA-256 digests, shows a key only when created or rotated, and never in lists", async () => {
    const created = await fx.request<{ id: string; api_key: string }>("POST", "/users", {
      body: { username: `keys-${Date.now()}`, first_name: "K", password: "password-1234" },
    });
    const key = created.body.api_key;
    expect(key).toMatch(/^tsr\./);
    const stored = await server.ctx.db.selectFrom("users").select("api_key").where("id", "=", created.body.id).executeTakeFirstOrThrow();
    expect(stored.api_key).toBe(hashApiKey(key));
    const all = await server.ctx.db.selectFrom("users").select("api_key").execute();
    expect(all.every((u) => u.api_key.startsWith("sha256:"))).toBe(true);
    const headers = { "x-argilla-api-key": key };
    expect((await me(server.url, headers)).status).toBe(200);
    expect((await me(server.url, { "x-argilla-api-key": stored.api_key })).status).toBe(401); // the digest is no key
    for (const path of ["/me", `/users/${created.body.id}`, "/users"]) {
      expect(JSON.stringify((await fx.request("GET", path)).body)).not.toContain("api_key");
    }
  });

  it("migrates the clear keys of an older database to digests; the keys keep working", async () => {
    const dir = mkdtempSync(join(tmpdir(), "tessera-keys-"));
    try {
      const sqlite = new SQLite(join(dir, "tessera.db"));
      const db = new Kysely<unknown>({ dialect: new SqliteDialect({ database: sqlite }) });
      const migrator = new Migrator({ db, provider: migrationProvider });
      expect((await migrator.migrateTo("0017-text-search-changes")).error).toBeUndefined();
      sqlite
        .prepare(
          "INSERT INTO users (id, username, first_name, last_name, role, password_hash, api_key, inserted_at, updated_at) VALUES ('u1', 'old', 'Old', NULL, 'admin', 'x', 'argilla.apikey', 't', 't')",
        )
        .run();
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      expect(sqlite.prepare("SELECT api_key, session_version FROM users WHERE id = 'u1'").get()).toEqual({
        api_key: hashApiKey("argilla.apikey"),
        session_version: 0,
      });
      expect((await migrator.migrateToLatest()).error).toBeUndefined();
      await db.destroy();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
