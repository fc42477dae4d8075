import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FAKE_HUB_TOKEN, startFakeHub, type FakeHub } from "./index.js";

let hub: FakeHub;
beforeAll(async () => {
  hub = await startFakeHub();
});
afterAll(async () => {
  await hub.close();
});

const get = async (path: string, params: Record<string, string | number> = {}, headers: Record<string, string> = {}) => {
  const query = new URLSearchParams(Object.entries(params).map(([k, v]) => [k, String(v)] as [string, string]));
  const res = await fetch(`${hub.url}${path}?${query}`, { headers });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, unknown> };
};
const AUTH_MESSAGE =
  "The dataset does not exist, or is not accessible without authentication (private or gated). Please check the spelling of the dataset name or retry with authentication.";

describe("fake hub: dataset viewer API", () => {
  it("/is-valid answers the five capabilities, with CORS for browsers", async () => {
    const res = await get("/is-valid", { dataset: "tessera/sentiment-10k" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ preview: true, viewer: true, search: true, filter: true, statistics: true });
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(res.headers.get("x-revision")).toMatch(/^[0-9a-f]{40}$/);
  });

  it("answers a CORS preflight allowing the Authorization header", async () => {
    const res = await fetch(`${hub.url}/info?dataset=tessera/chat-demo`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:6900",
        "access-control-request-method": "GET",
        "access-control-request-headers": "authorization",
      },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get("access-control-allow-headers")).toMatch(/Authorization/);
  });

  it("unknown dataset: 401 without a token, 404 with one, same message (hub.md 1.4)", async () => {
    const anonymous = await get("/splits", { dataset: "nobody/nothing" });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("x-error-code")).toBe("ExternalUnauthenticatedError");
    expect(anonymous.body).toEqual({ error: AUTH_MESSAGE });
    const withToken = await get("/splits", { dataset: "nobody/nothing" }, { authorization: "Bearer hf_whatever" });
    expect(withToken.status).toBe(404);
    expect(withToken.headers.get("x-error-code")).toBe("ExternalAuthenticatedError");
    expect(withToken.body).toEqual({ error: AUTH_MESSAGE });
  });

  it("a gated dataset needs a valid token", async () => {
    expect((await get("/info", { dataset: "tessera/gated-demo" })).status).toBe(401);
    expect((await get("/info", { dataset: "tessera/gated-demo" }, { authorization: "Bearer hf_wrong" })).status).toBe(404);
    expect((await get("/info", { dataset: "tessera/gated-demo" }, { authorization: `Bearer ${FAKE_HUB_TOKEN}` })).status).toBe(200);
  });

  it("missing parameters are 422 MissingRequiredParameter", async () => {
    const res = await get("/splits");
    expect(res.status).toBe(422);
    expect(res.headers.get("x-error-code")).toBe("MissingRequiredParameter");
    expect(res.body).toEqual({ error: "Parameter 'dataset' is required" });
    const rows = await get("/rows", { dataset: "tessera/sentiment-10k", config: "default" });
    expect(rows.status).toBe(422);
    expect(rows.body).toEqual({ error: "Parameters 'dataset', 'config' and 'split' are required" });
  });

  it("/splits lists every subset and split; unknown config is 404 Not found.", async () => {
    const res = await get("/splits", { dataset: "tessera/product-reviews" });
    expect(res.body).toEqual({
      splits: [
        { dataset: "tessera/product-reviews", config: "en", split: "train" },
        { dataset: "tessera/product-reviews", config: "en", split: "test" },
        { dataset: "tessera/product-reviews", config: "de", split: "train" },
      ],
      pending: [],
      failed: [],
    });
    const unknown = await get("/splits", { dataset: "tessera/product-reviews", config: "fr" });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get("x-error-code")).toBe("ResponseNotFound");
    expect(unknown.body).toEqual({ error: "Not found." });
  });

  it("/info is keyed by config without one, a single DatasetInfo with one", async () => {
    const all = await get("/info", { dataset: "tessera/product-reviews" });
    const info = all.body.dataset_info as Record<string, { config_name: string; splits: Record<string, { num_examples: number }> }>;
    expect(Object.keys(info)).toEqual(["en", "de"]);
    expect(info.en!.splits.train!.num_examples).toBe(40);
    expect(all.body).toMatchObject({ pending: [], failed: [], partial: false });
    const one = await get("/info", { dataset: "tessera/sentiment-10k", config: "default" });
    expect(one.body.partial).toBe(false);
    expect(one.body.dataset_info).toMatchObject({
      config_name: "default",
      dataset_name: "sentiment-10k",
      builder_name: "parquet",
      features: { text: { _type: "Value", dtype: "string" }, label: { _type: "ClassLabel", names: ["negative", "positive"] } },
      splits: { train: { name: "train", num_examples: 10050 } },
    });
  });

  it("/first-rows gives at most 100 rows with ordered feature items and integer class labels", async () => {
    const res = await get("/first-rows", { dataset: "tessera/sentiment-10k", config: "default", split: "train" });
    expect(res.status).toBe(200);
    const rows = res.body.rows as { row_idx: number; row: { label: number }; truncated_cells: string[] }[];
    expect(rows).toHaveLength(100);
    expect(res.body.truncated).toBe(false);
    expect(res.body.features).toEqual([
      { feature_idx: 0, name: "id", type: { _type: "Value", dtype: "string" } },
      { feature_idx: 1, name: "text", type: { _type: "Value", dtype: "string" } },
      { feature_idx: 2, name: "label", type: { _type: "ClassLabel", names: ["negative", "positive"] } },
    ]);
    expect(rows[0]).toMatchObject({ row_idx: 0, truncated_cells: [] });
    expect([0, 1]).toContain(rows[0]!.row.label);
    expect(rows[96]!.row.label).toBe(-1);
  });

  it("/rows pages by offset/length with absolute row_idx and enforces its limits", async () => {
    const page = await get("/rows", { dataset: "tessera/sentiment-10k", config: "default", split: "train", offset: 10000, length: 100 });
    const rows = page.body.rows as { row_idx: number; row: { id: string } }[];
    expect(page.body).toMatchObject({ num_rows_total: 10050, num_rows_per_page: 100, partial: false });
    expect(rows).toHaveLength(50);
    expect(rows[0]).toMatchObject({ row_idx: 10000, row: { id: "review-10000" } });
    const past = await get("/rows", { dataset: "tessera/sentiment-10k", config: "default", split: "train", offset: 20000 });
    expect(past.body.rows).toEqual([]);
    const tooLong = await get("/rows", { dataset: "tessera/sentiment-10k", config: "default", split: "train", length: 101 });
    expect(tooLong.status).toBe(422);
    expect(tooLong.body).toEqual({ error: "Parameter 'length' must not be greater than 100" });
    expect((await get("/rows", { dataset: "tessera/sentiment-10k", config: "default", split: "train", offset: "x" })).body).toEqual({
      error: "Parameter 'offset' must be integer",
    });
    expect((await get("/rows", { dataset: "tessera/sentiment-10k", config: "default", split: "train", offset: -1 })).body).toEqual({
      error: "Parameter 'offset' must be positive",
    });
    expect((await get("/rows", { dataset: "tessera/sentiment-10k", config: "default", split: "nope" })).status).toBe(404);
  });

  it("the generated dataset is deterministic", async () => {
    const a = await get("/rows", { dataset: "tessera/sentiment-10k", config: "default", split: "train", offset: 5000, length: 3 });
    const other = await startFakeHub();
    try {
      const res = await fetch(`${other.url}/rows?dataset=tessera/sentiment-10k&config=default&split=train&offset=5000&length=3`);
      expect(((await res.json()) as { rows: unknown }).rows).toEqual(a.body.rows);
    } finally {
      await other.close();
    }
  });

  it("image cells are {src, height, width} and src serves a PNG from the fake hub", async () => {
    const res = await get("/rows", { dataset: "tessera/shapes-images", config: "default", split: "train", length: 2 });
    const rows = res.body.rows as { row: { image: { src: string; width: number; height: number }; label: number } }[];
    const image = rows[1]!.row.image;
    expect(image).toMatchObject({ width: 12, height: 12 });
    expect(image.src.startsWith(`${hub.url}/assets/tessera/shapes-images/--/`)).toBe(true);
    const png = await fetch(image.src);
    expect(png.status).toBe(200);
    expect(png.headers.get("content-type")).toBe("image/png");
    const bytes = new Uint8Array(await png.arrayBuffer());
    expect([...bytes.slice(1, 4)].map((b) => String.fromCharCode(b)).join("")).toBe("PNG");
    expect((await fetch(`${hub.url}/assets/tessera/shapes-images/--/bad/--/default/train/0/image/image.png`)).status).toBe(404);
  });

  it("serves chat (legacy list of {content, role}) and multi-label (Sequence of ClassLabel) columns", async () => {
    const chat = await get("/first-rows", { dataset: "tessera/chat-demo", config: "default", split: "train" });
    const features = chat.body.features as { name: string; type: unknown }[];
    expect(features.find((f) => f.name === "messages")!.type).toEqual([
      { content: { _type: "Value", dtype: "string" }, role: { _type: "Value", dtype: "string" } },
    ]);
    const first = (chat.body.rows as { row: { messages: { role: string }[] } }[])[0]!;
    expect(first.row.messages.map((m) => m.role)).toEqual(["user", "assistant"]);
    const news = await get("/first-rows", { dataset: "tessera/news-topics", config: "default", split: "train" });
    expect((news.body.features as { name: string; type: unknown }[])[1]!.type).toMatchObject({
      _type: "Sequence",
      feature: { _type: "ClassLabel" },
    });
    expect((news.body.rows as { row: { topics: number[] } }[])[0]!.row.topics).toEqual([0, 3]);
  });

  it("/statistics describes class labels, numbers, bools and strings", async () => {
    const res = await get("/statistics", { dataset: "tessera/product-reviews", config: "en", split: "train" });
    expect(res.body.num_examples).toBe(40);
    const stats = res.body.statistics as { column_name: string; column_type: string; column_statistics: Record<string, unknown> }[];
    const byName = Object.fromEntries(stats.map((s) => [s.column_name, s]));
    expect(byName.rating).toMatchObject({ column_type: "int", column_statistics: { min: 1, max: 5, nan_count: 0 } });
    expect(byName.price!.column_type).toBe("float");
    expect(byName.verified!.column_type).toBe("bool");
    expect(byName.product).toMatchObject({ column_type: "string_label", column_statistics: { n_unique: 8 } });
    expect(byName.review).toMatchObject({ column_type: "string_text", column_statistics: { nan_count: 0 } });
    expect(byName.sentiment).toMatchObject({ column_type: "class_label" });
    const hist = byName.rating!.column_statistics.histogram as { hist: number[] };
    expect(hist.hist.reduce((a, b) => a + b, 0)).toBe(40);
  });

  it("failure fixtures: ResponseNotReady once, then rows; UnexpectedError past an offset", async () => {
    const params = { dataset: "tessera/slow-start", config: "default", split: "train" };
    const first = await get("/rows", params);
    expect(first.status).toBe(500);
    expect(first.headers.get("x-error-code")).toBe("ResponseNotReady");
    expect((await get("/rows", params)).status).toBe(200);
    const broken = await get("/rows", { dataset: "tessera/broken-rows", config: "default", split: "train", offset: 200 });
    expect(broken.status).toBe(500);
    expect(broken.headers.get("x-error-code")).toBe("UnexpectedError");
  });

  it("records requests for tests", async () => {
    await get("/size", { dataset: "tessera/chat-demo" }, { authorization: "Bearer hf_x" });
    expect(hub.requests.at(-1)).toEqual({
      method: "GET",
      path: "/size",
      query: { dataset: "tessera/chat-demo" },
      authorization: "Bearer hf_x",
    });
  });
});
