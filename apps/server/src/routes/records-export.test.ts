import { parse as parseCsv } from "csv-parse/sync";
import { parquetMetadata, parquetReadObjects } from "hyparquet";
import { describe, expect, it, beforeAll } from "vitest";
import { FORBIDDEN, MISSING, serverForFile, type Actor } from "../testing/fixtures.js";
import type { ExportRecord, ExportResponse } from "../transfer/export/export-records.js";

const fx = serverForFile();

interface Seed {
  workspaceId: string;
  datasetId: string;
  a1: Actor;
  a2: Actor;
  admin: Actor;
  outsider: Actor;
}
let s: Seed;
const N = 1_250; // more than one export page (EXPORT_PAGE = 1000)

beforeAll(async () => {
  const ws = await fx.workspace();
  const ds = await fx.dataset(ws.id, { name: "Exports ü" });
  await fx.field(ds.id, { name: "text", title: "Text" });
  const label = await fx.question(ds.id, { name: "label", title: "Label" });
  await fx.question(ds.id, { name: "note", title: "Note", required: false, settings: { type: "text" } });
  await fx.metadataProperty(ds.id, { name: "genre", title: "Genre", visible_for_annotators: true });
  await fx.metadataProperty(ds.id, { name: "secret", title: "Secret", visible_for_annotators: false });
  await fx.metadataProperty(ds.id, { name: "n", title: "N", settings: { type: "integer" }, visible_for_annotators: true });
  await fx.vectorSettings(ds.id, { name: "emb", title: "Emb", dimensions: 2 });
  await fx.publish(ds.id);
  const a1 = await fx.member(ws.id, "annotator");
  const a2 = await fx.member(ws.id, "annotator");
  const admin = await fx.member(ws.id, "admin");
  const outsider = await fx.user("annotator");
  for (let start = 0; start < N; start += 500) {
    const items = Array.from({ length: Math.min(500, N - start) }, (_, k) => {
      const i = start + k;
      return {
        external_id: `r-${i}`,
        fields: { text: `Text "${i}", with comma\nand newline` },
        metadata: { genre: i % 2 === 0 ? "news" : "blog", secret: `s-${i}`, n: i },
        vectors: { emb: [i / N, 0.5] },
        suggestions: i < 3 ? [{ question_id: label.id, value: "yes", score: 0.75, agent: "model-1" }] : [],
        responses:
          i < 3
            ? [
                { user_id: a1.id, status: "submitted", values: { label: { value: "yes" }, note: { value: "a1 says hi" } } },
                { user_id: a2.id, status: "draft", values: { label: { value: "no" } } },
              ]
            : [],
      };
    });
    await fx.ok("POST", `/datasets/${ds.id}/records/bulk`, { items }, 201);
  }
  s = { workspaceId: ws.id, datasetId: ds.id, a1, a2, admin, outsider };
}, 120_000);

const download = async (path: string, options: { headers?: Record<string, string>; body?: unknown } = {}) => {
  const init: RequestInit = { method: options.body === undefined ? "GET" : "POST", headers: { ...(options.headers ?? fx.owner) } };
  if (options.body !== undefined) {
    init.body = JSON.stringify(options.body);
    (init.headers as Record<string, string>)["content-type"] = "application/json";
  }
  const res = await fetch(`${fx.server.url}/api/v1/datasets/${s.datasetId}/records/export${path}`, init);
  return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
};
/** Responses come by time, then user id: the two annotators' (written together) in user id order. */
const byUser = <T extends [string, ...unknown[]]>(rows: T[]): T[] => {
  const idOf = (username: string) => (username === s.a1.username ? s.a1.id : s.a2.id);
  return [...rows].sort((a, b) => idOf(a[0]).localeCompare(idOf(b[0])));
};
const lines = (bytes: Buffer) =>
  bytes
    .toString("utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ExportRecord);
const csvRows = (bytes: Buffer) => parseCsv(bytes, { columns: true, bom: true }) as Record<string, string>[];
const parquetRows = async (bytes: Buffer) => {
  const file = new Uint8Array(bytes).buffer;
  return { rows: (await parquetReadObjects({ file })) as Record<string, unknown>[], metadata: parquetMetadata(file) };
};

describe("GET/POST /datasets/{id}/records/export", () => {
  it("streams every record as JSON Lines with fields, metadata, suggestions, every annotator's responses and status (owner)", async () => {
    const res = await download("?format=jsonl");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("application/x-ndjson");
    expect(res.headers.get("content-disposition")).toContain("attachment;");
    expect(res.headers.get("content-disposition")).toContain("Exports%20%C3%BC.jsonl");
    const records = lines(res.bytes);
    expect(records).toHaveLength(N);
    expect(records.map((r) => r.external_id).slice(0, 3)).toEqual(["r-0", "r-1", "r-2"]);
    expect(records[N - 1]!.external_id).toBe(`r-${N - 1}`);
    const first = records[0]!;
    expect(first).toMatchObject({
      status: "completed",
      fields: { text: 'Text "0", with comma\nand newline' },
      metadata: { genre: "news", secret: "s-0", n: 0 },
      suggestions: { label: { value: "yes", score: 0.75, agent: "model-1" } },
    });
    expect(first.vectors).toBeUndefined();
    expect(first.responses.map((r: ExportResponse) => [r.username, r.status, r.values])).toEqual(
      byUser([
        [s.a1.username, "submitted", { label: "yes", note: "a1 says hi" }],
        [s.a2.username, "draft", { label: "no" }],
      ]),
    );
    expect(records[5]!.responses).toEqual([]);
  });

  it("adds vectors when asked", async () => {
    const records = lines((await download("?format=jsonl&vectors=true")).bytes);
    expect(records[0]!.vectors).toEqual({ emb: [0, 0.5] });
  });

  it("gives an annotator only their own responses and the metadata visible to annotators; admins everything", async () => {
    const mine = lines((await download("?format=jsonl", { headers: s.a2.headers })).bytes);
    expect(mine).toHaveLength(N);
    expect(mine[0]!.metadata).toEqual({ genre: "news", n: 0 });
    expect(mine[0]!.responses.map((r: ExportResponse) => r.username)).toEqual([s.a2.username]);
    const admin = lines((await download("?format=jsonl", { headers: s.admin.headers })).bytes);
    expect(admin[0]!.metadata).toEqual({ genre: "news", secret: "s-0", n: 0 });
    expect(admin[0]!.responses).toHaveLength(2);
    const csv = csvRows((await download("?format=csv", { headers: s.a1.headers })).bytes);
    expect(Object.keys(csv[0]!)).not.toContain("metadata.secret");
    expect(JSON.parse(csv[0]!["label.responses.users"]!)).toEqual([s.a1.username]);
  });

  it("flattens into CSV: one column per field, metadata property and question part", async () => {
    const res = await download("?format=csv");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/csv");
    const rows = csvRows(res.bytes);
    expect(rows).toHaveLength(N);
    expect(Object.keys(rows[0]!)).toEqual([
      "id",
      "external_id",
      "status",
      "inserted_at",
      "updated_at",
      "text",
      "metadata.genre",
      "metadata.secret",
      "metadata.n",
      "label.responses",
      "label.responses.users",
      "label.responses.status",
      "label.suggestion",
      "label.suggestion.score",
      "label.suggestion.agent",
      "label.final",
      "note.responses",
      "note.responses.users",
      "note.responses.status",
      "note.suggestion",
      "note.suggestion.score",
      "note.suggestion.agent",
      "note.final",
      "final_answer.reviewer",
      "final_answer.updated_at",
    ]);
    expect(rows[0]).toMatchObject({
      external_id: "r-0",
      text: 'Text "0", with comma\nand newline',
      "metadata.genre": "news",
      "metadata.n": "0",
      "label.responses": JSON.stringify(
        byUser([
          [s.a1.username, "yes"],
          [s.a2.username, "no"],
        ]).map((r) => r[1]),
      ),
      "label.responses.users": JSON.stringify(byUser([[s.a1.username], [s.a2.username]]).map((r) => r[0])),
      "label.responses.status": JSON.stringify(
        byUser([
          [s.a1.username, "submitted"],
          [s.a2.username, "draft"],
        ]).map((r) => r[1]),
      ),
      "label.suggestion": "yes",
      "label.suggestion.score": "0.75",
      "label.suggestion.agent": "model-1",
      "note.responses": '["a1 says hi"]',
      "note.suggestion": "",
    });
    expect(rows[4]!["label.responses"]).toBe("[]");
  });

  it("writes Parquet with typed columns, readable by a Parquet reader", async () => {
    const res = await download("?format=parquet&vectors=true");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/vnd.apache.parquet");
    const { rows, metadata } = await parquetRows(res.bytes);
    expect(Number(metadata.num_rows)).toBe(N);
    expect(rows[0]).toMatchObject({
      external_id: "r-0",
      text: 'Text "0", with comma\nand newline',
      "metadata.genre": "news",
      "metadata.n": 0,
      "vector.emb": [0, 0.5],
      "label.responses": byUser([
        [s.a1.username, "yes"],
        [s.a2.username, "no"],
      ]).map((r) => r[1]),
      "label.responses.users": byUser([[s.a1.username], [s.a2.username]]).map((r) => r[0]),
      "label.suggestion": "yes",
      "label.suggestion.score": 0.75,
    });
    expect(rows[N - 1]!["metadata.n"]).toBe(N - 1);
    const mine = await parquetRows((await download("?format=parquet", { headers: s.a1.headers })).bytes);
    expect(mine.rows[0]!["label.responses.users"]).toEqual([s.a1.username]);
    expect(Object.keys(mine.rows[0]!)).not.toContain("metadata.secret");
  });

  it("exports only the records that match the annotation page's criteria, across cursor pages", async () => {
    const body = {
      filters: {
        and: [
          { type: "terms", scope: { entity: "metadata", metadata_property: "genre" }, values: ["blog"] },
          { type: "range", scope: { entity: "metadata", metadata_property: "n" }, ge: 995, le: 1004 },
        ],
      },
    };
    const records = lines((await download("?format=jsonl", { body })).bytes);
    expect(records.map((r) => r.external_id)).toEqual(["r-995", "r-997", "r-999", "r-1001", "r-1003"]);
    // response status refers to the caller, as on the annotation page: a1 submitted r-0..r-2, a2 only drafted them
    const submitted = { filters: { and: [{ type: "terms", scope: { entity: "response", property: "status" }, values: ["submitted"] }] } };
    expect(lines((await download("?format=jsonl", { body: submitted, headers: s.a1.headers })).bytes).map((r) => r.external_id)).toEqual([
      "r-0",
      "r-1",
      "r-2",
    ]);
    expect((await download("?format=jsonl", { body: submitted, headers: s.a2.headers })).bytes.length).toBe(0);
    const text = { query: { text: { q: "1249" } } };
    expect(csvRows((await download("?format=csv", { body: text })).bytes).map((r) => r.external_id)).toEqual(["r-1249"]);
    const none = await parquetRows((await download("?format=parquet", { body: submitted, headers: s.a2.headers })).bytes);
    expect(none.rows).toEqual([]);
  });

  it("gives, byte for byte, the full export's lines of the matching records (metadata, the caller's answer, text)", async () => {
    const genre = { type: "terms", scope: { entity: "metadata", metadata_property: "genre" }, values: ["news"] };
    const small = { type: "range", scope: { entity: "metadata", metadata_property: "n" }, ge: 100, le: 1200 };
    const yes = { type: "terms", scope: { entity: "response", question: "label" }, values: ["yes"] };
    for (const [headers, body, expected] of [
      [fx.owner, { filters: { and: [genre, small] } }, Array.from({ length: 551 }, (_, k) => `r-${100 + 2 * k}`)],
      [s.a1.headers, { filters: { and: [yes] } }, ["r-0", "r-1", "r-2"]],
      [fx.owner, { query: { text: { q: "1249" } }, filters: { and: [{ ...genre, values: ["blog"] }] } }, ["r-1249"]],
    ] as const) {
      const all = (await download("?format=jsonl", { headers })).bytes.toString("utf8").split("\n").filter(Boolean);
      const byId = new Map(all.map((line) => [(JSON.parse(line) as ExportRecord).external_id, line]));
      const bytes = (await download("?format=jsonl", { body, headers })).bytes.toString("utf8");
      expect(bytes).toBe(expected.map((id) => `${byId.get(id)}\n`).join(""));
    }
  });

  it("carries the reviewer's final answers to owners and admins in every format, never to annotators", async () => {
    const first = lines((await download("?format=jsonl")).bytes)[0]!;
    expect(first.final_answer).toBeNull();
    await fx.ok("PUT", `/records/${first.id}/final-answer`, { values: { label: { value: "no" }, note: { value: "settled" } } });
    const settled = lines((await download("?format=jsonl")).bytes);
    expect(settled[0]!.final_answer).toMatchObject({ values: { label: "no", note: "settled" }, reviewer: "owner" });
    expect(Date.parse(settled[0]!.final_answer!.updated_at)).not.toBeNaN();
    expect(settled[1]!.final_answer).toBeNull();
    expect(settled[0]!.responses).toHaveLength(2); // the annotators' responses stay as they were
    const admin = lines((await download("?format=jsonl", { headers: s.admin.headers })).bytes);
    expect(admin[0]!.final_answer).toMatchObject({ values: { label: "no" } });

    const csv = csvRows((await download("?format=csv")).bytes);
    expect(csv[0]).toMatchObject({ "label.final": "no", "note.final": "settled", "final_answer.reviewer": "owner" });
    expect(csv[1]).toMatchObject({ "label.final": "", "final_answer.reviewer": "" });
    const pq = await parquetRows((await download("?format=parquet")).bytes);
    expect(pq.rows[0]).toMatchObject({ "label.final": "no", "note.final": "settled", "final_answer.reviewer": "owner" });
    expect(pq.rows[1]!["label.final"]).toBeNull();

    // annotators do not see others' work: no final answer key, column or Parquet column
    const mine = lines((await download("?format=jsonl", { headers: s.a1.headers })).bytes);
    expect(mine[0]).not.toHaveProperty("final_answer");
    const mineCsv = csvRows((await download("?format=csv", { headers: s.a1.headers })).bytes);
    expect(Object.keys(mineCsv[0]!).filter((k) => k.includes("final"))).toEqual([]);
    const minePq = await parquetRows((await download("?format=parquet", { headers: s.a1.headers })).bytes);
    expect(Object.keys(minePq.rows[0]!).filter((k) => k.includes("final"))).toEqual([]);
    await fx.ok("DELETE", `/records/${first.id}/final-answer`, undefined, 204);
  });

  it("answers 401, 403, 404 and 422 before streaming anything", async () => {
    expect((await download("?format=jsonl", { headers: {} })).status).toBe(401);
    const outsider = await download("?format=jsonl", { headers: s.outsider.headers });
    expect(outsider.status).toBe(403);
    expect(JSON.parse(outsider.bytes.toString())).toEqual(FORBIDDEN);
    const missing = await fetch(`${fx.server.url}/api/v1/datasets/${MISSING}/records/export`, { headers: fx.owner });
    expect(missing.status).toBe(404);
    for (const query of ["?format=xlsx", "?vectors=yes"]) expect((await download(query)).status).toBe(422);
    const hiddenFilter = {
      filters: { and: [{ type: "terms", scope: { entity: "metadata", metadata_property: "secret" }, values: ["s-1"] }] },
    };
    expect((await download("", { body: hiddenFilter, headers: s.a1.headers })).status).toBe(422); // annotators cannot probe hidden metadata
    expect(lines((await download("", { body: hiddenFilter })).bytes).map((r) => r.external_id)).toEqual(["r-1"]);
    const badFilter = { filters: { and: [{ type: "terms", scope: { entity: "metadata", metadata_property: "nope" }, values: ["x"] }] } };
    expect((await download("", { body: badFilter })).status).toBe(422);
    expect((await download("", { body: { query: { vector: { name: "emb", value: [1, 0] } } } })).status).toBe(422);
  });
});
