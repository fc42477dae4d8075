import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, type TestServer } from "../../testing/test-server.js";
import { richDataset, recordItems, type RichDataset } from "../../records/testing.js";
import { countsSeenDuring } from "../../testing/batched-deletion.js";
import { deleteDataset } from "./delete-dataset.js";

/**
 * Deleting a dataset with its records' responses, suggestions and vectors, in batches: another dataset's requests run
 * between two batches, and nothing of the deleted dataset is left (on the store the suite runs on).
 */
describe("deleting a dataset in batches", () => {
  let s: { server: TestServer; d: RichDataset; ids: string[] };
  let other: RichDataset;
  let otherIds: string[];
  const N = 600;

  beforeAll(async () => {
    const server = await startTestServer();
    const d = await richDataset(server);
    const items = recordItems(N, "del", (i) => ({
      metadata: { genre: i % 2 ? "news" : "blog", words: i },
      vectors: { [d.vectorName]: [i % 7, 1, (i % 3) + 1] },
      suggestions: [{ question_id: d.questions.label.id, value: "positive", score: 0.5 }],
      ...(i % 3 === 0 ? { responses: [{ user_id: d.annotator.id, status: "submitted", values: { label: { value: "negative" } } }] } : {}),
    }));
    const ids = [...(await d.f.records(d.datasetId, items.slice(0, 300))), ...(await d.f.records(d.datasetId, items.slice(300)))];
    s = { server, d, ids };
    other = await richDataset(server);
    otherIds = await other.f.records(
      other.datasetId,
      recordItems(20, "keep", () => ({ suggestions: [{ question_id: other.questions.label.id, value: "neutral" }] })),
    );
  }, 120_000);
  afterAll(() => s?.server.stop());

  const count = async (table: "records" | "responses" | "suggestions" | "record_vectors", recordIds: string[]) => {
    const db = s.server.ctx.db;
    const rows =
      table === "records"
        ? await db
            .selectFrom("records")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("id", "in", recordIds)
            .executeTakeFirstOrThrow()
        : await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as("n"))
            .where("record_id", "in", recordIds)
            .executeTakeFirstOrThrow();
    return Number(rows.n);
  };

  it("lets other requests run between batches and leaves nothing of the dataset", async () => {
    const db = s.server.ctx.db;
    expect(await count("records", s.ids)).toBe(N);
    expect(await count("responses", s.ids)).toBe(N / 3);
    expect(await count("record_vectors", s.ids)).toBe(N);
    const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", s.d.datasetId).executeTakeFirstOrThrow();

    // While it runs, another request counts the dataset's records: between two batches it sees a part of them.
    const seen = await countsSeenDuring(
      () => count("records", s.ids),
      (batches) => deleteDataset(s.server.ctx, dataset, batches),
      40,
    );
    expect([...seen].some((n) => n > 0 && n < N)).toBe(true);

    expect(await db.selectFrom("datasets").select("id").where("id", "=", s.d.datasetId).executeTakeFirst()).toBeUndefined();
    for (const table of ["records", "responses", "suggestions", "record_vectors"] as const) expect(await count(table, s.ids)).toBe(0);
    expect((await s.d.f.request("GET", `/datasets/${s.d.datasetId}`)).status).toBe(404);
    // The other dataset keeps its records and takes writes.
    expect(await count("records", otherIds)).toBe(20);
    expect(await count("suggestions", otherIds)).toBe(20);
    await other.f.ok("POST", `/records/${otherIds[0]}/responses`, { values: { label: { value: "positive" } }, status: "submitted" }, 201);
  });

  it("finishes a deletion of a dataset whose batches are exactly full, and one without records", async () => {
    const d = await richDataset(s.server);
    const ids = await d.f.records(d.datasetId, recordItems(80, "full"));
    const db = s.server.ctx.db;
    const row = await db.selectFrom("datasets").selectAll().where("id", "=", d.datasetId).executeTakeFirstOrThrow();
    await deleteDataset(s.server.ctx, row, 40);
    expect(await count("records", ids)).toBe(0);
    expect(await db.selectFrom("datasets").select("id").where("id", "=", d.datasetId).executeTakeFirst()).toBeUndefined();
    const empty = await richDataset(s.server);
    expect(await d.f.ok("DELETE", `/datasets/${empty.datasetId}`)).toMatchObject({ id: empty.datasetId });
    expect((await d.f.request("GET", `/datasets/${empty.datasetId}`)).status).toBe(404);
  });
});
