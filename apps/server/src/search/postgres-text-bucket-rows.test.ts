import { describe, expect, it } from "vitest";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { bucketRowsSql } from "./postgres-text-bucket-rows.js";
import { Builder, queryRows } from "./postgres-sql.js";
import { answerRecords, completeRecords, copyDataset, insertRecords, seedSearchData, TEST_FILTERS } from "./search-port.suite.js";

const onPostgres = testDatabaseUrl() !== null;

describe.skipIf(!onPostgres)("PostgreSQL: a text search's rows from records_fts's buckets", () => {
  it("reads the matches' records by their primary key and their responses by theirs, also in a dataset the statistics do not know", async () => {
    const store = await openTestPostgresStore();
    try {
      const { ids } = await seedSearchData(store);
      // Statistics taken before the dataset was imported and answered (autovacuum off: they stay so), then its records and a
      // completed head, each answered.
      await queryRows(store.db, "ALTER TABLE records SET (autovacuum_enabled = off)", []);
      await queryRows(store.db, "ALTER TABLE responses SET (autovacuum_enabled = off)", []);
      await queryRows(store.db, "ANALYZE records, responses", []);
      const dataset = await copyDataset(store, ids.ds);
      const shape = (i: number) => ({
        external_id: `b-${i}`,
        fields: JSON.stringify({ text: `${i % 4 === 0 ? "kiwi" : "lime"} pad${i % 50}` }),
        metadata: "null",
      });
      const records: { id: string; seq: number }[] = [];
      for (let k = 0; k < 3; k++) records.push(...(await insertRecords(store, dataset, 2000, (i) => shape(k * 2000 + i))));
      const head = records.slice(0, 3000);
      await completeRecords(store, head);
      await answerRecords(store, head, ids.u1, "submitted");
      const b = new Builder(null);
      const { submitted } = TEST_FILTERS;
      const datasetParam = b.p(dataset);
      const filters = [b.filter({ ...submitted })];
      const first = Math.floor(head[0]!.seq / 1024);
      const last = Math.floor(head[head.length - 1]!.seq / 1024);
      const buckets = `{${Array.from({ length: last - first + 1 }, (_, i) => first + i).join(",")}}`;
      const statement = bucketRowsSql(b.tsQuery([{ word: "kiwi", prefix: false }]), b.p(buckets), "", datasetParam, filters);
      // Rows: the head's records of the word, and those after it in its last bucket (the filter passes any answered record).
      const rows = await queryRows<{ seq: number | string; id: string; score: number }>(store.db, statement, b.params);
      const expected = records
        .map((r, i) => ({ ...r, i }))
        .filter((r) => r.i < 3000 && r.i % 4 === 0)
        .map((r) => r.id)
        .sort();
      expect(rows.map((r) => r.id).sort()).toEqual(expected);
      expect(rows.every((r) => r.score > 0)).toBe(true);
      const [plan] = await queryRows<{ "QUERY PLAN": unknown }>(store.db, `EXPLAIN (FORMAT JSON) ${statement}`, b.params);
      const text = typeof plan!["QUERY PLAN"] === "string" ? plan!["QUERY PLAN"] : JSON.stringify(plan!["QUERY PLAN"]);
      expect(text).toContain("records_pkey");
      expect(text).not.toMatch(/records_dataset_/);
      // Each row ranked before the rows are grouped by record: no node above the text's rows carries their tsvectors.
      const [verbose] = await queryRows<{ "QUERY PLAN": unknown }>(store.db, `EXPLAIN (VERBOSE, FORMAT JSON) ${statement}`, b.params);
      type Node = { "Node Type": string; Output?: string[]; Plans?: Node[] };
      const raw = verbose!["QUERY PLAN"];
      const nodes = (node: Node): Node[] => [node, ...(node.Plans ?? []).flatMap(nodes)];
      const all = nodes(((typeof raw === "string" ? JSON.parse(raw) : raw) as { Plan: Node }[])[0]!.Plan);
      const carrying = all.filter((n) => !/Scan/.test(n["Node Type"]) && (n.Output ?? []).includes("f.tsv"));
      expect(carrying.map((n) => n["Node Type"])).toEqual([]);
      // The filter's responses of each record through responses_record_user_uq, not every response scanned once per match.
      expect(text).toContain("responses_record_user_uq");
      expect(text).not.toMatch(
        /"Relation Name": "responses"[^}]*"Node Type": "Seq Scan"|"Node Type": "Seq Scan"[^}]*"Relation Name": "responses"/,
      );
    } finally {
      await store.close();
    }
  }, 60_000);
});
