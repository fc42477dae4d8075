import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { firstWithStatusSql, lastWithStatusSql } from "./postgres-first-with-status.js";
import { queryRows } from "./postgres-sql.js";
import { completeRecords, copyDataset, insertRecords, seedSearchData } from "./search-port.suite.js";

const onPostgres = testDatabaseUrl() !== null;

describe.skipIf(!onPostgres)("PostgreSQL: a dataset's first record of a status", () => {
  let store: Store;
  const datasets: string[] = [];
  beforeAll(async () => {
    store = await openTestPostgresStore();
    const { ids } = await seedSearchData(store);
    for (let d = 0; d < 3; d++) datasets.push(await copyDataset(store, ids.ds));
    const shape = (i: number) => ({ external_id: `f-${i}`, fields: JSON.stringify({ text: "x" }), metadata: "null" });
    // Interleaved datasets: the first's records, the second's, the first's again (its seqs with a gap), the third's.
    const first = await insertRecords(store, datasets[0]!, 6000, shape);
    await insertRecords(store, datasets[1]!, 300, shape);
    const again = await insertRecords(store, datasets[0]!, 200, (i) => shape(6000 + i));
    const third = await insertRecords(store, datasets[2]!, 50, shape);
    // Statistics taken while every record is pending, then a team's completed head: the planner's estimate says all pending.
    await queryRows(store.db, "ANALYZE records", []);
    await completeRecords(store, first.slice(0, 5000));
    await completeRecords(store, [...first.slice(5000), again[3]!, third[10]!]);
    await store.db.updateTable("records").set({ status: "pending" }).where("id", "=", first[7]!.id).execute();
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it("gives min(seq) / max(seq) of the dataset's records of the status, null when none", async () => {
    for (const d of [...datasets, "no-such-dataset"])
      for (const status of ["pending", "completed", "other"]) {
        const [row] = await queryRows<{ got: string | null; expected: string | null }>(
          store.db,
          `SELECT ${firstWithStatusSql("$1", "$2::text")} AS got, (SELECT min(seq) FROM records WHERE dataset_id = $1 AND status = $2) AS expected`,
          [d, status],
        );
        expect(row!.got, `${d} ${status}`).toBe(row!.expected);
      }
    for (const d of [...datasets, "no-such-dataset"])
      for (const status of ["pending", "completed", "other"]) {
        const [last] = await queryRows<{ got: string | null; expected: string | null }>(
          store.db,
          `SELECT ${lastWithStatusSql("$1", "$2::text")} AS got, (SELECT max(seq) FROM records WHERE dataset_id = $1 AND status = $2) AS expected`,
          [d, status],
        );
        expect(last!.got, `last ${d} ${status}`).toBe(last!.expected);
      }
    const [row] = await queryRows<{ got: string | null }>(store.db, `SELECT ${firstWithStatusSql("$1")} AS got`, [datasets[0]!]);
    expect(row!.got).not.toBeNull();
  });

  it("reads the status index, not the records in seq order, whatever the statistics say", async () => {
    const [plan] = await queryRows<{ "QUERY PLAN": unknown }>(store.db, `EXPLAIN (FORMAT JSON) SELECT ${firstWithStatusSql("$1")}`, [
      datasets[0]!,
    ]);
    const [planLast] = await queryRows<{ "QUERY PLAN": unknown }>(store.db, `EXPLAIN (FORMAT JSON) SELECT ${lastWithStatusSql("$1")}`, [
      datasets[0]!,
    ]);
    for (const text of [JSON.stringify(plan!["QUERY PLAN"]), JSON.stringify(planLast!["QUERY PLAN"])]) {
      expect(text).toContain("records_dataset_status_seq_idx");
      expect(text).not.toContain("records_pkey");
    }
  });
});
