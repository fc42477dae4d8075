import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_HUB_TOKEN, startFakeHub, type FakeHub } from "@tessera/fake-hub";
import { HubClient, HubError, isValidRepoId } from "./client.js";
import { convertCell } from "./features.js";

let hub: FakeHub;
/** A misbehaving host: /redirect points elsewhere, /hang never answers, /bad answers a wrong shape. */
let rogue: Server;
let rogueUrl: string;
let rogueHits = 0;

beforeAll(async () => {
  hub = await startFakeHub();
  rogue = createServer((req, res) => {
    rogueHits += 1;
    if (req.url?.startsWith("/redirect/")) {
      res.writeHead(302, { location: `${hub.url}/splits?dataset=tessera/chat-demo` }).end();
      return;
    }
    if (req.url?.startsWith("/bad/")) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ splits: "nope" }));
      return;
    }
    // /hang/...: never answers.
  });
  await new Promise<void>((resolve) => rogue.listen(0, "127.0.0.1", resolve));
  rogueUrl = `http://127.0.0.1:${(rogue.address() as AddressInfo).port}`;
});
afterAll(async () => {
  rogue.closeAllConnections();
  await new Promise((resolve) => rogue.close(resolve));
  await hub.close();
});

const client = (options: Partial<ConstructorParameters<typeof HubClient>[0]> = {}) =>
  new HubClient({ baseUrl: hub.url, retryDelayMs: 1, ...options });

const failure = async (promise: Promise<unknown>): Promise<HubError> => {
  try {
    await promise;
  } catch (error) {
    if (error instanceof HubError) return error;
    throw error;
  }
  throw new Error("expected a HubError");
};

describe("HubClient", () => {
  it("reads splits, info, first rows, rows and statistics", async () => {
    const c = client();
    expect((await c.splits("tessera/product-reviews")).splits.map((s) => `${s.config}/${s.split}`)).toEqual([
      "en/train",
      "en/test",
      "de/train",
    ]);
    expect((await c.info("tessera/sentiment-10k", "default")).features).toMatchObject({ label: { _type: "ClassLabel" } });
    expect((await c.firstRows("tessera/chat-demo", "default", "train")).rows).toHaveLength(12);
    const page = await c.rows("tessera/sentiment-10k", "default", "train", 9950, 100);
    expect(page.num_rows_total).toBe(10050);
    expect(page.rows[0]!.row_idx).toBe(9950);
    expect((await c.statistics("tessera/product-reviews", "en", "train")).num_examples).toBe(40);
    expect(await c.isValid("tessera/chat-demo")).toMatchObject({ viewer: true });
  });

  it("sends the token as a bearer only when configured, and reaches gated datasets with it", async () => {
    const before = hub.requests.length;
    await client().isValid("tessera/chat-demo");
    expect(hub.requests[before]!.authorization).toBeNull();
    expect((await failure(client().info("tessera/gated-demo", "default"))).kind).toBe("not_found");
    expect((await client({ token: FAKE_HUB_TOKEN }).info("tessera/gated-demo", "default")).features).toBeDefined();
    expect(hub.requests.at(-1)!.authorization).toBe(`Bearer ${FAKE_HUB_TOKEN}`);
  });

  it("classifies errors: unknown repo and subset are not_found, bad parameters invalid_request, hub failures upstream", async () => {
    expect(await failure(client().splits("nobody/nothing"))).toMatchObject({
      kind: "not_found",
      status: 401,
      code: "ExternalUnauthenticatedError",
    });
    expect(await failure(client({ token: "hf_other" }).splits("nobody/nothing"))).toMatchObject({ kind: "not_found", status: 404 });
    expect(await failure(client().info("tessera/chat-demo", "nope"))).toMatchObject({ kind: "not_found", code: "ResponseNotFound" });
    expect(await failure(client().rows("tessera/chat-demo", "default", "train", 0, 101))).toMatchObject({ kind: "invalid_request" });
    const broken = await failure(client().rows("tessera/broken-rows", "default", "train", 300, 100));
    expect(broken).toMatchObject({ kind: "upstream", status: 500, code: "UnexpectedError" });
  });

  it("retries ResponseNotReady, then gives up with not_ready", async () => {
    const fresh = await startFakeHub();
    try {
      const page = await new HubClient({ baseUrl: fresh.url, retryDelayMs: 1 }).rows("tessera/slow-start", "default", "train", 0, 10);
      expect(page.rows).toHaveLength(10);
      expect(fresh.requests.filter((r) => r.path === "/rows")).toHaveLength(2);
    } finally {
      await fresh.close();
    }
    const other = await startFakeHub();
    try {
      const error = await failure(
        new HubClient({ baseUrl: other.url, retryDelayMs: 1, notReadyRetries: 0 }).rows("tessera/slow-start", "default", "train", 0, 10),
      );
      expect(error.kind).toBe("not_ready");
    } finally {
      await other.close();
    }
  });

  it("SSRF: refuses redirects, malformed repo ids and non-http base URLs; only the configured host is called", async () => {
    const before = hub.requests.length;
    const redirected = await failure(new HubClient({ baseUrl: `${rogueUrl}/redirect/` }).splits("tessera/chat-demo"));
    expect(redirected.kind).toBe("unreachable");
    expect(hub.requests.length).toBe(before);
    const hits = rogueHits;
    for (const id of ["../etc/passwd", "http://169.254.169.254/x", "a/b/c", "", "owner/na me", "owner/..name"]) {
      expect(isValidRepoId(id)).toBe(false);
      expect((await failure(new HubClient({ baseUrl: rogueUrl }).splits(id))).kind).toBe("not_found");
    }
    expect(rogueHits).toBe(hits);
    expect(isValidRepoId("stanfordnlp/imdb")).toBe(true);
    expect(isValidRepoId("imdb")).toBe(true);
    expect(() => new HubClient({ baseUrl: "file:///etc/passwd" })).toThrow(/http/);
  });

  it("times out a silent host and rejects answers of the wrong shape", async () => {
    const started = Date.now();
    const timeout = await failure(new HubClient({ baseUrl: `${rogueUrl}/hang/`, timeoutMs: 200 }).splits("tessera/chat-demo"));
    expect(timeout.kind).toBe("unreachable");
    expect(timeout.message).toMatch(/200 ms/);
    expect(Date.now() - started).toBeLessThan(5000);
    expect((await failure(new HubClient({ baseUrl: `${rogueUrl}/bad/` }).splits("tessera/chat-demo"))).kind).toBe("upstream");
    expect((await failure(new HubClient({ baseUrl: "http://127.0.0.1:1" }).splits("tessera/chat-demo"))).kind).toBe("unreachable");
  });
});

describe("convertCell", () => {
  const classLabel = { _type: "ClassLabel", names: ["neg", "pos"] };
  it("turns class label indexes into names (-1 and out of range into null), recursively in lists", () => {
    expect(convertCell(classLabel, 1)).toBe("pos");
    expect(convertCell(classLabel, -1)).toBeNull();
    expect(convertCell(classLabel, 7)).toBeNull();
    expect(convertCell({ _type: "Sequence", feature: classLabel }, [0, 1])).toEqual(["neg", "pos"]);
    expect(convertCell({ _type: "List", feature: classLabel }, [1])).toEqual(["pos"]);
    expect(convertCell([classLabel], [1, 0])).toEqual(["pos", "neg"]);
    expect(
      convertCell(
        { _type: "Sequence", feature: { tag: classLabel, word: { _type: "Value", dtype: "string" } } },
        { tag: [0, 1], word: ["a", "b"] },
      ),
    ).toEqual({ tag: ["neg", "pos"], word: ["a", "b"] });
  });
  it("keeps image src, passes values and chat lists through", () => {
    expect(convertCell({ _type: "Image" }, { src: "https://x/y.png", width: 1, height: 1 })).toBe("https://x/y.png");
    expect(convertCell({ _type: "Value", dtype: "int32" }, 3)).toBe(3);
    const chat = [{ role: "user", content: "hi" }];
    expect(convertCell([{ content: { _type: "Value", dtype: "string" }, role: { _type: "Value", dtype: "string" } }], chat)).toEqual(chat);
    expect(convertCell(classLabel, null)).toBeNull();
  });
});
