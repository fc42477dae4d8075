import { describe, expect, it, beforeAll } from "vitest";
import { serverForFile, type Actor } from "../testing/fixtures.js";
import type { ExportRecord } from "./export/export-records.js";

/**
 * The round trip of issue 23: a dataset downloaded as JSON Lines or Parquet and uploaded into a new
 * dataset with the same settings gives the same records, responses, suggestions and metadata. A
 * reviewer's final answer is in the file (`final_answer`, `<q>.final`) but an upload does not make it
 * a final answer again: final answers are a reviewer's act on this server (docs/api.md "Record uploads").
 */
const fx = serverForFile();
let workspaceId = "";
let source = "";
let a1: Actor;
let a2: Actor;

async function datasetWithSettings(): Promise<string> {
  const ds = await fx.dataset(workspaceId);
  await fx.field(ds.id, { name: "text", title: "Text" });
  await fx.question(ds.id, { name: "label", title: "Label" });
  await fx.question(ds.id, {
    name: "topics",
    title: "Topics",
    required: false,
    settings: {
      type: "multi_label_selection",
      options: [
        { value: "a", text: "A" },
        { value: "b", text: "B" },
      ],
    },
  });
  await fx.question(ds.id, { name: "note", title: "Note", required: false, settings: { type: "text" } });
  await fx.metadataProperty(ds.id, { name: "genre", title: "Genre" });
  await fx.metadataProperty(ds.id, { name: "n", title: "N", settings: { type: "integer" } });
  await fx.metadataProperty(ds.id, { name: "weight", title: "Weight", settings: { type: "float" } });
  await fx.publish(ds.id);
  return ds.id;
}

beforeAll(async () => {
  workspaceId = (await fx.workspace()).id;
  a1 = await fx.member(workspaceId, "annotator");
  a2 = await fx.member(workspaceId, "annotator");
  source = await datasetWithSettings();
  const label = (await fx.ok<{ items: Array<{ id: string; name: string }> }>("GET", `/datasets/${source}/questions`)).items;
  const q = (name: string) => label.find((x) => x.name === name)!.id;
  const items = Array.from({ length: 30 }, (_, i) => ({
    external_id: `ext-${i}`,
    fields: { text: `Text ${i}: "quoted", comma, ünïcode\nsecond line` },
    metadata: { genre: i % 3 === 0 ? "news" : "blog", n: i, weight: i / 4 },
    suggestions:
      i % 2 === 0
        ? [
            { question_id: q("label"), value: "yes", score: 0.5, agent: "m1" },
            { question_id: q("topics"), value: ["a", "b"], score: [0.1, 0.2], agent: "m2" },
          ]
        : [],
    responses:
      i < 10
        ? [
            {
              user_id: a1.id,
              status: "submitted",
              values: { label: { value: "no" }, topics: { value: ["b"] }, note: { value: `note ${i}` } },
            },
            ...(i < 5 ? [{ user_id: a2.id, status: i % 2 ? "draft" : "submitted", values: { label: { value: "yes" } } }] : []),
          ]
        : [],
  }));
  await fx.ok("POST", `/datasets/${source}/records/bulk`, { items }, 201);
  const first = (await fx.ok<{ items: Array<{ id: string }> }>("GET", `/datasets/${source}/records?limit=1`)).items[0]!;
  await fx.ok("PUT", `/records/${first.id}/final-answer`, { values: { label: { value: "yes" } } });
}, 60_000);

const exported = async (datasetId: string, format: "jsonl" | "parquet") => {
  const res = await fetch(`${fx.server.url}/api/v1/datasets/${datasetId}/records/export?format=${format}`, { headers: fx.owner });
  return Buffer.from(await res.arrayBuffer());
};
/** What must survive: everything but server ids and timestamps; responses by user. */
const comparable = (bytes: Buffer) =>
  bytes
    .toString("utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l) as ExportRecord)
    .map((r) => ({
      external_id: r.external_id,
      status: r.status,
      fields: r.fields,
      metadata: r.metadata,
      suggestions: r.suggestions,
      responses: r.responses
        .map((x) => ({ username: x.username, status: x.status, values: x.values }))
        .sort((a, b) => String(a.username).localeCompare(String(b.username))),
    }));

/** The final answers of an export's lines (values only). */
const finals = (bytes: Buffer) =>
  bytes
    .toString("utf8")
    .trim()
    .split("\n")
    .map((l) => (JSON.parse(l) as ExportRecord).final_answer)
    .filter((f) => f)
    .map((f) => f!.values);

const MAPPING = {
  fields: [{ source: "text", target: "text" }],
  metadata: [
    { source: "metadata.genre", target: "genre" },
    { source: "metadata.n", target: "n" },
    { source: "metadata.weight", target: "weight" },
  ],
  suggestions: [
    { source: "label.suggestion", target: "label" },
    { source: "topics.suggestion", target: "topics" },
  ],
  responses: [
    { source: "label.responses", target: "label" },
    { source: "topics.responses", target: "topics" },
    { source: "note.responses", target: "note" },
  ],
  external_id: "external_id",
};

describe("download, then upload into a new dataset", () => {
  for (const format of ["jsonl", "parquet"] as const) {
    it(`gives the same records, responses, suggestions and metadata (${format})`, async () => {
      const file = await exported(source, format);
      const target = await datasetWithSettings();
      const res = await fetch(`${fx.server.url}/api/v1/uploads?filename=records.${format}`, {
        method: "POST",
        headers: { ...fx.owner, "content-type": "application/octet-stream" },
        body: file,
      });
      expect(res.status).toBe(201);
      const upload = (await res.json()) as { id: string; columns: Array<{ name: string; hint: string | null }> };
      expect(upload.columns.find((c) => c.name === "label.responses")?.hint).toBe("responses");
      // the final answer travels in the file, marked as such, and is not restored (docs/api.md "Record uploads")
      expect(upload.columns.find((c) => c.name === "label.final")?.hint).toBe("final");
      expect(upload.columns.find((c) => c.name === "final_answer.reviewer")?.hint).toBe("final");
      await fx.ok("POST", `/uploads/${upload.id}/import`, { dataset_id: target, mapping: MAPPING }, 202);
      for (let i = 0; i < 400; i++) {
        const state = await fx.ok<{ status: string; rows_stored: number; error: string | null }>("GET", `/uploads/${upload.id}`);
        if (state.status !== "queued" && state.status !== "importing") {
          expect(state).toMatchObject({ status: "finished", rows_stored: 30, error: null });
          break;
        }
        await new Promise((r) => setTimeout(r, 25));
      }
      const sourceLines = await exported(source, "jsonl");
      const before = comparable(sourceLines);
      const after = comparable(await exported(target, "jsonl"));
      expect(finals(sourceLines)).toEqual([{ label: "yes" }]);
      expect(finals(await exported(target, "jsonl"))).toEqual([]);
      expect(after).toHaveLength(30);
      expect(after).toEqual(before);
      expect(after[0]!.responses).toHaveLength(2);
    });
  }
});
