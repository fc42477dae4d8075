import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { serverForFile } from "../../testing/fixtures.js";
import { pageStart } from "../page-positions.js";
import { interleavedDatasets } from "../testing.js";

const fx = serverForFile();

type Page = { items: { id: string }[]; total: number };

const interleaved = (n: number) => interleavedDatasets(fx, n);

/** The plain definition: the dataset's records in seq order, and their count. */
async function plain(datasetId: string): Promise<string[]> {
  const rows = await fx.server.ctx.db.selectFrom("records").select("id").where("dataset_id", "=", datasetId).orderBy("seq").execute();
  return rows.map((r) => r.id);
}

const page = (datasetId: string, offset: number, limit: number) =>
  fx.ok<Page>("GET", `/datasets/${datasetId}/records?offset=${offset}&limit=${limit}&include=responses&include=suggestions`);

describe("the dataset's records by offset (the SDK's iteration)", () => {
  it("answers every page as the plain offset query does, across deletions before and after the page, appends and another dataset's records", async () => {
    const { a, b, add } = await interleaved(25);
    const seen: string[] = [];
    let offset = 0;
    /** Pages of 4 up to `end`, each compared with the plain query's page and count at that moment. */
    const pagesUpTo = async (end: number) => {
      for (; offset < end; offset += 4) {
        const got = await page(a.datasetId, offset, 4);
        const ids = await plain(a.datasetId);
        expect(got.items.map((r) => r.id)).toEqual(ids.slice(offset, offset + 4));
        expect(got.total).toBe(ids.length);
        seen.push(...got.items.map((r) => r.id));
      }
    };
    await pagesUpTo(12);
    // A record before the position and one after it go, the other dataset grows: the next pages are the plain ones.
    await fx.ok("DELETE", `/datasets/${a.datasetId}/records?ids=${seen[2]},${(await plain(a.datasetId))[20]}`, undefined, 204);
    await add(b, 4, "b-more");
    await pagesUpTo(20);
    // Appended records: the pages reach them, then an empty page past the end.
    await add(a, 6, "a-more");
    await pagesUpTo(40);
    expect((await page(a.datasetId, 29, 4)).items).toEqual([]);
    // A page that jumps ahead (not where a page ended) and the first page again.
    const ids = await plain(a.datasetId);
    expect((await page(a.datasetId, 13, 5)).items.map((r) => r.id)).toEqual(ids.slice(13, 18));
    expect((await page(a.datasetId, 0, 3)).items.map((r) => r.id)).toEqual(ids.slice(0, 3));
    const other = await page(b.datasetId, 2, 50);
    expect(other.items.map((r) => r.id)).toEqual((await plain(b.datasetId)).slice(2));
  }, 60_000);

  it("answers a direct jump past 20,000 records (from a checkpoint on PostgreSQL) as the plain offset query does, before and after a deletion", async () => {
    const { a } = await interleaved(5);
    const db = fx.server.ctx.db;
    const at = "2024-01-01T00:00:00";
    for (let i = 0; i < 21_000; i += 1_000)
      await db
        .insertInto("records")
        .values(
          Array.from({ length: 1_000 }, (_, j) => ({
            id: randomUUID(),
            dataset_id: a.datasetId,
            external_id: `bulk-${i + j}`,
            fields: JSON.stringify({ [a.fieldName]: `bulk ${i + j}` }),
            metadata: null,
            status: "pending",
            inserted_at: at,
            updated_at: at,
          })),
        )
        .execute();
    for (const deleted of [false, true]) {
      const ids = await plain(a.datasetId);
      for (const offset of [20_000, 20_500, ids.length - 3, 1_024 * 20 + 7]) {
        const got = await page(a.datasetId, offset, 5);
        expect(
          got.items.map((r) => r.id),
          `at ${offset}${deleted ? " after a deletion" : ""}`,
        ).toEqual(ids.slice(offset, offset + 5));
        expect(got.total).toBe(ids.length);
      }
      if (!deleted) await fx.ok("DELETE", `/datasets/${a.datasetId}/records?ids=${ids[100]!}`, undefined, 204);
    }
  }, 120_000);

  it("starts a page where the previous one ended, and not once a record before it is gone", async () => {
    const { a } = await interleaved(10);
    const db = fx.server.ctx.db;
    const first = await page(a.datasetId, 0, 4);
    const seqOf = async (id: string) =>
      Number((await db.selectFrom("records").select("seq").where("id", "=", id).executeTakeFirstOrThrow()).seq);
    const start = await pageStart(db, a.datasetId, 4, first.total);
    expect(start).toMatchObject({ offset: 4, seq: await seqOf(first.items[3]!.id) });
    // From a later offset too: the nearest position before it.
    expect((await pageStart(db, a.datasetId, 7, first.total))?.offset).toBe(4);
    expect(await pageStart(db, a.datasetId, 3, first.total)).toBeNull();
    await fx.ok("DELETE", `/datasets/${a.datasetId}/records?ids=${first.items[1]!.id}`, undefined, 204);
    expect(await pageStart(db, a.datasetId, 4, first.total - 1)).toBeNull();
  }, 60_000);
});
