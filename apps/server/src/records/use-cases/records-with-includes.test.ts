import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../testing/test-server.js";
import { richDataset, type RichDataset } from "../testing.js";
import { loadDatasetSchema } from "../dataset-schema.js";
import { FULL_INCLUDE, NO_INCLUDE, withIncludes, type Include, type RecordOut } from "../read.js";
import { ownResponsesOnly, recordViewer, type RecordViewer } from "../visibility.js";
import { recordRowsByIds } from "./record-rows-by-ids.js";
import { recordsWithIncludes } from "./records-with-includes.js";

let server: TestServer;
let d: RichDataset;
let ids: string[];

beforeAll(async () => {
  server = await startTestServer();
  d = await richDataset(server);
  ids = await d.f.records(d.datasetId, [
    {
      external_id: "a",
      fields: { text: "first", context: "x" },
      metadata: { genre: "news", words: 4, quality: 0.5 },
      vectors: { emb: [1, 0, 0] },
      suggestions: [
        { question_id: d.questions.label.id, value: "positive", score: 0.9, agent: "gpt", type: "model" },
        { question_id: d.questions.multi.id, value: ["a", "c"], score: [0.25, 0.125], agent: "bert", type: "model" },
      ],
    },
    { external_id: "b", fields: { text: "second" }, metadata: { genre: "blog", words: 40 } },
    { external_id: "c", fields: { text: "third" }, suggestions: [{ question_id: d.questions.rating.id, value: 3 }] },
  ]);
  const respond = (record: string, headers: Record<string, string>, body: unknown) =>
    d.f.ok("POST", `/records/${record}/responses`, body, 201, headers);
  await respond(ids[0]!, d.annotator.headers, { status: "submitted", values: { label: { value: "positive" }, rating: { value: 4 } } });
  await respond(ids[0]!, d.annotator2.headers, { status: "draft", values: { comment: { value: 'héllo "quoted"\n' } } });
  await respond(ids[1]!, d.annotator2.headers, { status: "discarded" });
}, 60_000);
afterAll(async () => {
  await server.stop();
});

/**
 * By id, each record's responses and suggestions in (inserted_at, id) order: both paths order them by
 * inserted_at, and rows of one request share it (ties come in either order), so it is checked apart.
 */
const byId = (records: RecordOut[]) => {
  const key = (p: { inserted_at: string; id: string }) => `${p.inserted_at} ${p.id}`;
  const sorted = <T extends { inserted_at: string; id: string }>(parts: T[] | undefined) => {
    if (!parts) return parts;
    for (let i = 1; i < parts.length; i++) expect(parts[i]!.inserted_at >= parts[i - 1]!.inserted_at).toBe(true);
    return [...parts].sort((a, b) => (key(a) < key(b) ? -1 : 1));
  };
  return new Map(records.map((r) => [r.id, { ...r, responses: sorted(r.responses), suggestions: sorted(r.suggestions) }]));
};

describe("recordsWithIncludes", () => {
  it("serializes the records as withIncludes over their rows does, for every viewer and include, leaving unknown ids out", async () => {
    const db = server.ctx.db;
    const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", d.datasetId).executeTakeFirstOrThrow();
    const schema = await loadDatasetSchema(db, dataset);
    const owner = await db.selectFrom("users").selectAll().where("role", "=", "owner").executeTakeFirstOrThrow();
    const annotator = await db.selectFrom("users").selectAll().where("id", "=", d.annotator2.id).executeTakeFirstOrThrow();
    const ownerView = await recordViewer(db, owner, d.workspaceId);
    const annotatorView = await recordViewer(db, annotator, d.workspaceId);
    expect(annotatorView.responses).toBe("own");
    const viewers: RecordViewer[] = [ownerView, ownResponsesOnly(ownerView), annotatorView];
    const includes: Include[] = [
      FULL_INCLUDE,
      NO_INCLUDE,
      { responses: true, suggestions: false, vectors: null },
      { responses: false, suggestions: true, vectors: null },
    ];
    const asked = [...ids, "00000000-0000-4000-8000-000000000000"];
    for (const viewer of viewers)
      for (const include of includes) {
        const got = await recordsWithIncludes(db, schema, asked, include, viewer);
        const expected = await withIncludes(db, schema, await recordRowsByIds(db, asked), include, viewer);
        expect(got).toHaveLength(3);
        expect(byId(got)).toEqual(byId(expected));
      }
    // What the annotator sees: only their own responses, the hidden metadata key left out, the suggestions' JSON values.
    const seen = byId(await recordsWithIncludes(db, schema, ids, FULL_INCLUDE, annotatorView));
    const first = seen.get(ids[0]!)!;
    expect(first.responses!.map((r) => r.values)).toEqual([{ comment: { value: 'héllo "quoted"\n' } }]);
    expect(first.metadata).toEqual({ genre: "news", quality: 0.5 });
    expect(new Set(first.suggestions!.map((s) => JSON.stringify([s.value, s.score])))).toEqual(
      new Set([
        JSON.stringify(["positive", 0.9]),
        JSON.stringify([
          ["a", "c"],
          [0.25, 0.125],
        ]),
      ]),
    );
    expect(seen.get(ids[2]!)!.responses).toEqual([]);
    expect(await recordsWithIncludes(db, schema, [], FULL_INCLUDE, ownerView)).toEqual([]);
  });
});
