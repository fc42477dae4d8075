import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../../db/store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../../testing/pg-test-database.js";
import { metadataNumberRange } from "../../db/postgres-queries.js";
import { metadataSortIndexName, PostgresMetadataSortIndexes } from "../../search/postgres-metadata-sort.js";
import { numberRangeSql } from "../../search/postgres-metadata-range.js";
import { queryRows } from "../../search/postgres-sql.js";
import { copyDataset, insertMetadataProperty, insertRecords, seedSearchData } from "../../search/search-port.suite.js";
import {
  computeMetadataMetrics,
  TERMS_METRICS_LIMIT,
  type MetadataMetrics,
  type MetadataOrderIndexes,
} from "./compute-metadata-metrics.js";
import type { MetadataPropertyRow } from "./find-metadata-property.js";

/**
 * Metadata metrics on PostgreSQL: the numeric range from the index of the property's order once it is valid, the
 * terms from the counts the triggers keep (migration 0038), equal to the plain answers over `records` (the queries before them) with and without
 * the index, across datasets, value types, lists, missing and JSON null values, and after writes.
 */
describe.skipIf(!testDatabaseUrl())("PostgreSQL: metadata metrics", () => {
  let store: Store;
  let ids: Awaited<ReturnType<typeof seedSearchData>>["ids"];
  const properties: MetadataPropertyRow[] = [];

  const property = async (datasetId: string, name: string, type: "integer" | "float" | "terms") => {
    properties.push((await insertMetadataProperty(store, datasetId, name, type)) as MetadataPropertyRow);
  };

  /** The plain terms over `records` (the query before record_search's): each record expanded. */
  const plainTerms = async (datasetId: string, name: string) =>
    (
      await sql<{ term: string; count: number | string }>`
      select e.value::text as term, count(*) as count
      from records r
        cross join lateral jsonb_array_elements(case jsonb_typeof(r.metadata -> ${name}::text)
          when 'array' then r.metadata -> ${name}::text else jsonb_build_array(r.metadata -> ${name}::text) end) as e(value)
      where r.dataset_id = ${datasetId} and jsonb_typeof(r.metadata) = 'object' and r.metadata ? ${name}::text
        and jsonb_typeof(e.value) in ('string', 'number', 'boolean')
      group by e.value order by count desc, e.value asc`.execute(store.db)
    ).rows.map((r) => ({ term: JSON.parse(r.term) as unknown, count: Number(r.count) }));

  /** What the route answered before: terms expanded over `records`, the numeric range over every record. */
  const plain = async (p: MetadataPropertyRow): Promise<MetadataMetrics> => {
    const type = (JSON.parse(p.settings) as { type: "terms" | "integer" | "float" }).type;
    if (type === "terms") {
      const counts = await plainTerms(p.dataset_id, p.name);
      return { type, total: counts.length, values: counts.slice(0, TERMS_METRICS_LIMIT) };
    }
    const range = await metadataNumberRange(store.db, p.dataset_id, p.name);
    const round = (v: number | null) => (v === null ? null : type === "float" ? Math.round(v * 1e5) / 1e5 : v);
    return { type, min: round(range.min), max: round(range.max) };
  };

  /** The index's answers, with how many numeric ranges it gave. */
  const counted = (indexes: PostgresMetadataSortIndexes) => {
    const seen = { indexed: 0 };
    const port: MetadataOrderIndexes = {
      ready: async (datasetId, name) => {
        const ok = await indexes.ready(datasetId, name);
        if (ok) seen.indexed++;
        return ok;
      },
    };
    return { port, seen };
  };

  /** Every property's metrics through `indexes` as the plain queries answer them; returns how many were non-trivial. */
  const compare = async (indexes: MetadataOrderIndexes | null, label: string) => {
    let nonEmpty = 0;
    for (const p of properties) {
      const expected = await plain(p);
      if ((expected.type === "terms" && expected.total > 0) || (expected.type !== "terms" && expected.min !== null)) nonEmpty++;
      expect(await computeMetadataMetrics(store.db, p, indexes), `${label} ${p.dataset_id === ids.ds ? "ds" : "other"} ${p.name}`).toEqual(
        expected,
      );
    }
    return nonEmpty;
  };

  beforeAll(async () => {
    store = await openTestPostgresStore();
    ({ ids } = await seedSearchData(store));
    // `length` integers (negative ones, 2.0 beside 2, a string, JSON null, missing), `quality` floats, `source`
    // terms (lists with repeated items, numbers, booleans, nested lists and objects, which are no terms), `tag` 300
    // terms (past the 250 returned), `empty` and `words` (only strings) properties with no number.
    const shape = (prefix: string, shift: number) => (i: number) => ({
      external_id: `${prefix}-${i}`,
      fields: JSON.stringify({ text: `record ${i}` }),
      metadata: JSON.stringify(
        i % 11 === 0
          ? {}
          : i % 23 === 0
            ? { length: null, quality: null, source: null, tag: null }
            : {
                length: i % 37 === 0 ? "n/a" : ((i * 7) % 101) - 40 + shift,
                quality: ((i * 13) % 50) / 7 - 1.123456789 + shift,
                source:
                  i % 8 === 0
                    ? ["news", "wiki", "news"]
                    : i % 19 === 0
                      ? [1, true, ["nested"], { a: 1 }, null]
                      : ["news", "wiki", "forum", "blog", 3, false][i % 6],
                tag: `t${(i * 17) % 300}`,
                words: `w${i % 3}`,
              },
      ),
    });
    await insertRecords(store, ids.other, 60, shape("o", 1000));
    await insertRecords(store, ids.ds, 1_200, shape("d", 0));
    await insertRecords(store, ids.other, 60, shape("p", -1000));
    // A record whose metadata is no object, and one with a number written as 2.0.
    await sql`UPDATE records SET metadata = '[1, 2]'::jsonb WHERE dataset_id = ${ids.ds} AND external_id = 'd-1'`.execute(store.db);
    await sql`UPDATE records SET metadata = metadata || '{"length": 2.0}'::jsonb WHERE dataset_id = ${ids.ds} AND external_id = 'd-2'`.execute(
      store.db,
    );
    for (const name of ["length", "empty"]) await property(ids.ds, name, "integer");
    for (const name of ["quality", "words"]) await property(ids.ds, name, "float");
    for (const name of ["source", "tag"]) await property(ids.ds, name, "terms");
    await property(ids.other, "length", "integer");
    await property(ids.other, "quality", "float");
    await property(ids.other, "source", "terms");
    await sql`ANALYZE`.execute(store.db);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  it("answers as the plain queries before the indexes are built, and from them once they are", async () => {
    const indexes = new PostgresMetadataSortIndexes(store.db);
    const before = counted(indexes);
    expect(await compare(before.port, "before")).toBeGreaterThanOrEqual(7);
    expect(before.seen.indexed).toBe(0);
    expect(await compare(null, "none")).toBeGreaterThanOrEqual(7);

    await indexes.tick();
    const after = counted(new PostgresMetadataSortIndexes(store.db));
    await compare(after.port, "built");
    // Every numeric property's range came from its index (4 of ds, 2 of other).
    expect(after.seen.indexed).toBe(6);
    const tag = await computeMetadataMetrics(
      store.db,
      properties.find((p) => p.name === "tag")!,
      after.port,
    );
    expect(tag).toMatchObject({ type: "terms", total: 300 });
    expect((tag as { values: unknown[] }).values).toHaveLength(TERMS_METRICS_LIMIT);
  }, 120_000);

  it("follows records added, updated and deleted", async () => {
    const indexes = new PostgresMetadataSortIndexes(store.db);
    await indexes.tick();
    const { port, seen } = counted(indexes);
    await insertRecords(store, ids.ds, 5, (i) => ({
      external_id: `late-${i}`,
      fields: JSON.stringify({ text: "late" }),
      metadata: JSON.stringify({ length: 5000 + i, quality: -77.5 - i, source: ["late", "late"], tag: "t1" }),
    }));
    await compare(port, "added");
    // The new extremes turned into strings and JSON null, another record's list emptied, the least length deleted.
    await sql`UPDATE records SET metadata = metadata || '{"length": "big", "quality": null}'::jsonb WHERE external_id IN ('late-0', 'late-4')`.execute(
      store.db,
    );
    await sql`UPDATE records SET metadata = metadata || '{"source": []}'::jsonb WHERE external_id = 'late-1'`.execute(store.db);
    await compare(port, "updated");
    const least = await sql<{
      id: string;
    }>`SELECT id FROM records WHERE dataset_id = ${ids.ds} AND jsonb_typeof(metadata -> 'length') = 'number'
      ORDER BY metadata -> 'length' ASC LIMIT 1`.execute(store.db);
    await sql`DELETE FROM records WHERE id = ${least.rows[0]!.id}`.execute(store.db);
    await sql`DELETE FROM records WHERE dataset_id = ${ids.other}`.execute(store.db);
    await compare(port, "deleted");
    expect(seen.indexed).toBe(18);
  }, 120_000);

  it("follows terms properties created, renamed, deleted, records moved or upserted, and datasets deleted (migration 0038)", async () => {
    const ds = properties.find((p) => p.dataset_id === ids.ds && p.name === "source")!;
    // A record moved to the other dataset, a batch upserted (the SDK's ON CONFLICT: an update of metadata), a
    // statement deleting and one inserting many at once.
    const moved = await sql<{
      id: string;
    }>`SELECT id FROM records WHERE dataset_id = ${ids.ds} AND metadata ->> 'source' = 'blog' LIMIT 3`.execute(store.db);
    await sql`UPDATE records SET dataset_id = ${ids.other} WHERE id = ANY(${moved.rows.map((r) => r.id)})`.execute(store.db);
    const batch = await insertRecords(store, ids.ds, 40, (i) => ({
      external_id: `batch-${i}`,
      fields: JSON.stringify({ text: "batch" }),
      metadata: JSON.stringify({ source: i % 2 ? "news" : ["forum", 7, 7.0], tag: `t${i}` }),
    }));
    await sql`INSERT INTO records (id, dataset_id, external_id, fields, metadata, status, inserted_at, updated_at)
      SELECT id, dataset_id, external_id, fields, '{"source": "upserted"}'::jsonb, status, inserted_at, updated_at FROM records
      WHERE id = ANY(${batch.slice(0, 10).map((r) => r.id)})
      ON CONFLICT (id) DO UPDATE SET metadata = excluded.metadata`.execute(store.db);
    await sql`DELETE FROM records WHERE id = ANY(${batch.slice(20).map((r) => r.id)})`.execute(store.db);
    // A status change fires nothing and changes nothing.
    await sql`UPDATE records SET status = 'completed' WHERE dataset_id = ${ids.ds} AND external_id LIKE 'd-1%'`.execute(store.db);
    await compare(null, "moved, upserted, deleted");
    // Renamed to a name no record has (no terms), back, deleted and created again (counted from the records).
    await sql`UPDATE metadata_properties SET name = 'nothing' WHERE id = ${ds.id}`.execute(store.db);
    expect(await computeMetadataMetrics(store.db, { ...ds, name: "nothing" })).toEqual({ type: "terms", total: 0, values: [] });
    expect(await computeMetadataMetrics(store.db, ds)).toEqual({ type: "terms", total: 0, values: [] });
    await sql`UPDATE metadata_properties SET name = 'source' WHERE id = ${ds.id}`.execute(store.db);
    await compare(null, "renamed back");
    await sql`DELETE FROM metadata_properties WHERE id = ${ds.id}`.execute(store.db);
    expect(await computeMetadataMetrics(store.db, ds)).toEqual({ type: "terms", total: 0, values: [] });
    const again = (await insertMetadataProperty(store, ids.ds, "source", "terms")) as MetadataPropertyRow;
    properties.splice(properties.indexOf(ds), 1, again);
    expect(((await computeMetadataMetrics(store.db, again)) as { total: number }).total).toBeGreaterThan(5);
    await compare(null, "created again");
    // A dataset deleted: its counts go with its properties (no row left behind by the records' cascade).
    const gone = await copyDataset(store, ids.ds);
    await insertMetadataProperty(store, gone, "source", "terms");
    await insertRecords(store, gone, 5, (i) => ({ external_id: `g-${i}`, fields: "{}", metadata: JSON.stringify({ source: "gone" }) }));
    const rowsOf = async (datasetId: string) =>
      Number(
        (await sql<{ n: string }>`SELECT count(*) AS n FROM metadata_term_counts WHERE dataset_id = ${datasetId}`.execute(store.db))
          .rows[0]!.n,
      );
    expect(await rowsOf(gone)).toBe(1);
    await sql`DELETE FROM datasets WHERE id = ${gone}`.execute(store.db);
    expect(await rowsOf(gone)).toBe(0);
    await compare(null, "other dataset deleted");
  }, 120_000);

  it("reads two entries of the index, never the records", async () => {
    await new PostgresMetadataSortIndexes(store.db).tick();
    const plan = (
      await queryRows<{ "QUERY PLAN": string }>(
        store.db,
        `EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) ${numberRangeSql(ids.ds, "length")}`,
        [],
      )
    )
      .map((r) => r["QUERY PLAN"])
      .join("\n");
    expect(plan).toContain(metadataSortIndexName(ids.ds, "length"));
    expect(plan).not.toMatch(/Seq Scan|Bitmap|Sort/);
    expect(plan.match(/Index Scan[^\n]*\(actual rows=1\.00/g)).toHaveLength(2);
  });
});
