import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawSqliteOf, type Store } from "../db/database.js";
import { openTempStore } from "../testing/temp-store.js";
import { seedSearchData } from "./search-port.suite.js";
import { filterSql, type Param } from "./sqlite-sql.js";

describe("filterSql: record ids", () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  let ids: { id: string; dataset_id: string }[];

  beforeAll(async () => {
    store = await openTempStore("tessera-sql-");
    data = await seedSearchData(store);
    for (let i = 0; i < 300; i++) {
      await store.db
        .insertInto("records")
        .values({
          id: randomUUID(),
          dataset_id: i % 3 === 0 ? data.ids.other : data.ids.ds,
          external_id: `x-${i}`,
          fields: '{"text":"x"}',
          metadata: JSON.stringify({ source: i % 2 === 0 ? "news" : "web" }),
          status: "pending",
          inserted_at: "2024-01-01T00:00:00",
          updated_at: "2024-01-01T00:00:00",
        })
        .execute();
    }
    ids = await store.db.selectFrom("records").select(["id", "dataset_id"]).orderBy("seq").execute();
  });
  afterAll(async () => {
    await store.close();
  });

  const select = (values: string[], extra: string) => {
    const params: Param[] = [data.ids.ds];
    const where = filterSql({ type: "terms", scope: { entity: "record", property: "id" }, values }, null, params);
    return { sql: `SELECT r.id AS id FROM records r WHERE r.dataset_id = ? AND ${where}${extra} ORDER BY r.seq LIMIT 50`, params };
  };

  it("keeps the dataset's records of those ids, as r.id IN (...) does: other datasets' ids, unknown ids and repeats left out", () => {
    const raw = rawSqliteOf(store.db)!;
    const values = [...ids.filter((_, i) => i % 7 === 0).map((r) => r.id), randomUUID(), ids[1]!.id, ids[1]!.id];
    const { sql, params } = select(values, "");
    const got = (raw.prepare(sql).all(...params) as { id: string }[]).map((r) => r.id);
    const plain = raw
      .prepare(
        `SELECT r.id AS id FROM records r WHERE r.dataset_id = ? AND r.id IN (${values.map(() => "?").join(", ")}) ORDER BY r.seq LIMIT 50`,
      )
      .all(data.ids.ds, ...values) as { id: string }[];
    expect(got).toEqual(plain.map((r) => r.id));
    expect(got.length).toBeGreaterThan(10);
    const none = select([], "");
    expect(raw.prepare(none.sql).all(...none.params)).toEqual([]);
  });

  it("looks the ids up by the unique index instead of walking the dataset in seq order", () => {
    const raw = rawSqliteOf(store.db)!;
    const { sql, params } = select(
      ids.slice(0, 20).map((r) => r.id),
      " AND EXISTS (SELECT 1 FROM record_metadata m WHERE m.seq = r.seq AND m.name = 'source')",
    );
    const plan = (raw.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...params) as { detail: string }[]).map((r) => r.detail);
    expect(plan.some((d) => /USING (COVERING )?INDEX sqlite_autoindex_records_\d+ \(id=\?\)/.test(d))).toBe(true);
    expect(plan).not.toContain("SEARCH r USING INDEX records_dataset_seq_idx (dataset_id=?)");
  });
});
