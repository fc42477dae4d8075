import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../testing/test-server.js";
import { Fixtures } from "../testing/fixtures.js";

/**
 * SSRF: the server talks only to the configured Hub host. A hostile dataset name, subset, split or
 * mapping in an import body, a redirect from the Hub, or a URL inside record content never makes
 * it request another host.
 */

interface Recorder {
  server: Server;
  url: string;
  hits: string[];
}

async function recorder(handler: (url: string) => { status: number; headers?: Record<string, string>; body?: string }): Promise<Recorder> {
  const hits: string[] = [];
  const server = createServer((req, res) => {
    hits.push(req.url ?? "");
    const answer = handler(req.url ?? "");
    res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
    res.end(answer.body ?? "{}");
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", () => r()));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, hits };
}

let evil: Recorder;
let hub: Recorder;
let server: TestServer;
let fx: Fixtures;
let datasetId = "";
let target = "";

beforeAll(async () => {
  evil = await recorder(() => ({ status: 200, body: "{}" }));
  // The "Hub" answers every call with a redirect to the evil host.
  hub = await recorder((url) => ({ status: 302, headers: { location: `${evil.url}/stolen?from=${encodeURIComponent(url)}` } }));
  server = await startTestServer({
    TESSERA_HUB_DATASETS_SERVER_URL: hub.url,
    TESSERA_HUB_TIMEOUT_MS: "2000",
    TESSERA_HUB_RETRY_DELAY_MS: "10",
  });
  fx = new Fixtures(server);
  const ready = await fx.readyDataset();
  datasetId = ready.datasetId;
  target = ready.fieldName;
});
afterAll(async () => {
  await server.stop();
  evil.server.close();
  hub.server.close();
});

const importBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  subset: "default",
  split: "train",
  mapping: { fields: [{ source: "text", target }] },
  ...extra,
});

describe("the Hub client only reaches the configured host", () => {
  it.each([
    `${"http"}://127.0.0.1:1/x`,
    "//evil.example/x",
    "owner/name@evil.example",
    "../../etc/passwd",
    "owner/../../x",
    "owner/name/../../..",
    "owner/name?x=1",
    "owner/name#frag",
    "owner%2Fname",
    "owner/name\r\nHost: evil",
    "file:///etc/passwd",
    "owner/name%00",
    "[::1]/x",
    "owner/name with space",
  ])("refuses the dataset name %j without any request", async (name) => {
    const before = hub.hits.length;
    const res = await fx.request("POST", `/datasets/${datasetId}/import`, { body: importBody(name) });
    expect(res.status).toBe(422);
    expect(hub.hits.length).toBe(before);
    expect(evil.hits).toEqual([]);
  });

  it("sends hostile subset and split only as encoded query parameters to the configured host, and does not follow its redirects", async () => {
    const res = await fx.request("POST", `/datasets/${datasetId}/import`, {
      body: importBody("owner/name", { subset: `x&dataset=evil/x#${evil.url}`, split: `${evil.url}/y` }),
    });
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect(res.status).toBeLessThan(600);
    expect(res.status).not.toBe(500);
    expect(hub.hits.length).toBeGreaterThan(0);
    for (const hit of hub.hits) {
      const url = new URL(hit, hub.url);
      expect(url.searchParams.getAll("dataset")).toEqual(["owner/name"]);
    }
    expect(evil.hits).toEqual([]);
  });

  it("never fetches URLs found in record content (markdown images, HTML, plain links)", async () => {
    const { datasetId: ds, fieldName } = await fx.readyDataset();
    const items = [{ fields: { [fieldName]: `![x](${evil.url}/md.png) <img src="${evil.url}/img.png"> ${evil.url}/plain` } }];
    const res = await fx.request("POST", `/datasets/${ds}/records/bulk`, { body: { items } });
    expect([201, 422]).toContain(res.status);
    await fx.request("POST", `/me/datasets/${ds}/records/search`, { body: { query: { text: { q: "evil" } } } });
    await new Promise((r) => setTimeout(r, 200));
    expect(evil.hits).toEqual([]);
  });
});
