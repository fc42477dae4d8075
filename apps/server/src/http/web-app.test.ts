import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startServer, type RunningServer } from "../server.js";
import { loadConfig } from "../config.js";

let server: RunningServer;
let dir: string;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "tessera-web-"));
  mkdirSync(join(dir, "dist/assets"), { recursive: true });
  writeFileSync(join(dir, "dist/index.html"), "<!doctype html><title>Tessera</title>");
  writeFileSync(join(dir, "dist/assets/app-123.js"), "console.log(1)");
  server = await startServer({
    ...loadConfig({ TESSERA_OWNER_PASSWORD: "pw-12345678" }, []),
    dataDir: join(dir, "data"),
    port: 0,
    webDist: join(dir, "dist"),
  });
});
afterAll(async () => {
  await server.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("serving the web app on the same origin", () => {
  it("serves index.html for app routes (history mode) without caching it", async () => {
    for (const path of ["/", "/sign-in", "/dataset/abc/annotation-mode?x=1", "/stanfordnlp%2Fimdb"]) {
      const res = await fetch(`${server.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get("content-type")).toContain("text/html");
      expect(await res.text()).toContain("<title>Tessera</title>");
    }
  });
  it("serves hashed assets with a long cache and nosniff", async () => {
    const res = await fetch(`${server.url}/assets/app-123.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toContain("immutable");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });
  it("gives 404 for missing assets and unknown API paths instead of the page", async () => {
    expect((await fetch(`${server.url}/assets/missing.js`)).status).toBe(404);
    const api = await fetch(`${server.url}/api/v1/unknown`);
    expect(api.status).toBe(404);
    expect(await api.json()).toEqual({ detail: "Not Found" });
  });
});
