import { describe, expect, it } from "vitest";
import { serverForFile } from "../testing/fixtures.js";
import { recordCounts } from "./counts.js";
import { checkpointBefore } from "./seq-checkpoints.js";
import { interleavedDatasets } from "./testing.js";

const fx = serverForFile();

/** Checkpoints every 4 records from offset 0 (1,024 from 20,000 in the server): small datasets reach them. */
const SMALL = { every: 4, from: 0 };

/** The plain definition: the dataset's records in seq order. */
async function plain(datasetId: string): Promise<{ id: string; seq: number }[]> {
  const rows = await fx.server.ctx.db
    .selectFrom("records")
    .select(["id", "seq"])
    .where("dataset_id", "=", datasetId)
    .orderBy("seq")
    .execute();
  return rows.map((r) => ({ id: r.id, seq: Number(r.seq) }));
}

describe("checkpoints of a dataset's records by position (a direct jump to a deep offset)", () => {
  it("gives for every offset a start whose page equals OFFSET's, across another dataset's records, deletions and appends", async () => {
    const { a, b, add } = await interleavedDatasets(fx, 30);
    const db = fx.server.ctx.db;
    /** Every offset's start, and the page of 3 from it read as the use case reads it, against the plain query's page. */
    const everyOffset = async () => {
      const ids = await plain(a.datasetId);
      const { total } = await recordCounts(db, a.datasetId);
      expect(total).toBe(ids.length);
      let used = 0;
      for (let offset = 0; offset <= ids.length + 2; offset++) {
        const start = await checkpointBefore(db, a.datasetId, offset, total, SMALL);
        if (start) {
          used++;
          expect(start.offset).toBeLessThanOrEqual(offset);
          expect(start.offset - 1).toBe(ids.findIndex((r) => r.seq === start.seq));
        }
        let query = db.selectFrom("records").select("id").where("dataset_id", "=", a.datasetId);
        if (start) query = query.where("seq", ">", start.seq);
        const rows = await query
          .orderBy("seq")
          .limit(3)
          .offset(offset - (start?.offset ?? 0))
          .execute();
        expect(rows.map((r) => r.id)).toEqual(ids.slice(offset, offset + 3).map((r) => r.id));
      }
      expect(used).toBeGreaterThan(ids.length - 8);
    };
    await everyOffset();
    // A record before most checkpoints goes, and one near the end: they are read again.
    const ids = await plain(a.datasetId);
    await fx.ok("DELETE", `/datasets/${a.datasetId}/records?ids=${ids[2]!.id},${ids[25]!.id}`, undefined, 204);
    await everyOffset();
    // Records appended to both datasets: the checkpoints still hold, and the new records are reached.
    await add(a, 7, "a-more");
    await add(b, 2, "b-more");
    await everyOffset();
    // The other dataset's own checkpoints.
    const other = await plain(b.datasetId);
    const start = await checkpointBefore(db, b.datasetId, 9, other.length, SMALL);
    expect(start).toMatchObject({ offset: 8, seq: other[7]!.seq });
  }, 120_000);

  it("reads by OFFSET below the deep offsets and for an empty dataset", async () => {
    const a = await fx.readyDataset();
    const db = fx.server.ctx.db;
    expect(await checkpointBefore(db, a.datasetId, 10, 0, SMALL)).toBeNull();
    await fx.records(a.datasetId, [{ external_id: "x", fields: { [a.fieldName]: "x" } }]);
    expect(await checkpointBefore(db, a.datasetId, 3, 1, { every: 4, from: 8 })).toBeNull();
    expect(await checkpointBefore(db, a.datasetId, 9, 1, SMALL)).toBeNull();
  }, 60_000);
});
