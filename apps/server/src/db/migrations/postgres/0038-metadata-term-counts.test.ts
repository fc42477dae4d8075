import { type Kysely, sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../../../testing/pg-test-database.js";
import { insertMetadataProperty, insertRecords, seedSearchData } from "../../../search/search-port.suite.js";
import { up } from "./0038-metadata-term-counts.js";

/**
 * Migration 0038 on a database with records and terms properties: the counts of every terms property (not of the
 * other types) equal to the plain count over the records, and its triggers keep them from then on.
 */
describe.skipIf(!testDatabaseUrl())("PostgreSQL migration 0038: metadata term counts", () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];

  beforeAll(async () => {
    store = await openTestPostgresStore();
    ({ ids } = await seedSearchData(store));
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  const counts = async () =>
    (
      await sql<{ dataset_id: string; name: string; term: string; count: string }>`SELECT dataset_id, name, term::text AS term, count
        FROM metadata_term_counts WHERE count > 0 ORDER BY 1, 2, 3`.execute(store.db)
    ).rows.map((r) => `${r.dataset_id === ids.ds ? "ds" : "other"} ${r.name} ${r.term} ${r.count}`);

  /** The plain count over `records`: each record's value of each terms property expanded. */
  const plain = async () =>
    (
      await sql<{
        dataset_id: string;
        name: string;
        term: string;
        count: string;
      }>`SELECT r.dataset_id, p.name, e.value::text AS term, count(*) AS count
        FROM records r JOIN metadata_properties p ON p.dataset_id = r.dataset_id AND p.settings::jsonb ->> 'type' = 'terms'
        CROSS JOIN LATERAL jsonb_array_elements(CASE jsonb_typeof(r.metadata -> p.name) WHEN 'array' THEN r.metadata -> p.name
          ELSE jsonb_build_array(r.metadata -> p.name) END) e(value)
        WHERE jsonb_typeof(e.value) IN ('string', 'number', 'boolean') GROUP BY 1, 2, e.value ORDER BY 1, 2, 3`.execute(store.db)
    ).rows.map((r) => `${r.dataset_id === ids.ds ? "ds" : "other"} ${r.name} ${r.term} ${r.count}`);

  it("counts the existing terms properties, then follows writes", async () => {
    const shape = (i: number) => ({
      external_id: `m-${i}`,
      fields: "{}",
      metadata: JSON.stringify({ source: i % 4 === 0 ? ["a", "b", "a"] : i % 3 === 0 ? null : `s${i % 5}`, length: i, flag: i % 2 === 0 }),
    });
    await insertRecords(store, ids.ds, 300, shape);
    await insertRecords(store, ids.other, 30, shape);
    await insertMetadataProperty(store, ids.ds, "source", "terms");
    await insertMetadataProperty(store, ids.ds, "flag", "terms");
    await insertMetadataProperty(store, ids.ds, "length", "integer");
    await insertMetadataProperty(store, ids.other, "source", "terms");
    // As before 0038: no counts, no triggers.
    await sql`DROP TABLE metadata_term_counts`.execute(store.db);
    await sql`DROP FUNCTION tessera_records_term_counts, tessera_property_term_counts CASCADE`.execute(store.db);
    await store.db.transaction().execute((trx) => up(trx as unknown as Kysely<unknown>));
    const migrated = await counts();
    expect(migrated.some((c) => c.startsWith("ds flag true"))).toBe(true);
    expect(migrated.some((c) => c.includes(" length "))).toBe(false);
    expect(migrated).toEqual(await plain());
    await insertRecords(store, ids.other, 7, (i) => ({ ...shape(i), external_id: `late-${i}` }));
    await sql`DELETE FROM records WHERE dataset_id = ${ids.ds} AND external_id LIKE 'm-1%'`.execute(store.db);
    expect(await counts()).toEqual(await plain());
  }, 60_000);
});
