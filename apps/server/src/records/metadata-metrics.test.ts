import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { describe, expect, it } from "vitest";
import { openEmbeddedStore } from "../db/database.js";
import { seedSearchData } from "../search/search-port.suite.js";
import { cachedMetricsUpTo, followMetrics, numberRange, termMetrics } from "./metadata-metrics.js";

const ts = "2024-01-01T00:00:00";

/** A new embedded store with the search suite's seed data, closed and removed afterwards. */
async function withSeededStore(
  prefix: string,
  run: (db: Kysely<DB>, ids: Awaited<ReturnType<typeof seedSearchData>>["ids"]) => Promise<void>,
): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const store = await openEmbeddedStore(dir);
  try {
    await run(store.db, (await seedSearchData(store)).ids);
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

describe("metadata property metrics kept up to date (SQLite)", () => {
  it("follow a write only where that is incremental: cached at the current version, or a small dataset", async () => {
    await withSeededStore("tessera-mdm-follow-", async (db, ids) => {
      const add = (n: number) =>
        db
          .insertInto("records")
          .values(
            Array.from({ length: n }, (_, i) => ({
              id: randomUUID(),
              dataset_id: ids.ds,
              external_id: null,
              fields: "{}",
              metadata: JSON.stringify({ genre: i % 2 ? "news" : "blog" }),
              status: "pending" as const,
              inserted_at: ts,
              updated_at: ts,
            })),
          )
          .execute();
      const last = async () =>
        (await sql<{ seq: number }>`select max(seq) as seq from records where dataset_id = ${ids.ds}`.execute(db)).rows[0]!.seq;
      await add(30);
      // Not cached and larger than the bound: left to the warm-up.
      expect(await followMetrics(db, ids.ds, "genre", "terms", 10)).toBe(false);
      expect(cachedMetricsUpTo(db, ids.ds, "genre", "terms")).toBeNull();
      // Small: computed from scratch.
      expect(await followMetrics(db, ids.ds, "genre", "terms", 1000)).toBe(true);
      expect(cachedMetricsUpTo(db, ids.ds, "genre", "terms")).toBe(await last());
      // Cached at the current version: the new records folded in, whatever the size.
      await add(5);
      expect(await followMetrics(db, ids.ds, "genre", "terms", 10)).toBe(true);
      expect(cachedMetricsUpTo(db, ids.ds, "genre", "terms")).toBe(await last());
      expect(await termMetrics(db, ids.ds, "genre")).toEqual([
        { term: "blog", count: 19 },
        { term: "news", count: 18 },
        { term: "forum", count: 1 },
      ]);
      // A metadata update moves the version: a recomputation from scratch, left to the warm-up.
      const one = (await db.selectFrom("records").select("id").where("dataset_id", "=", ids.ds).executeTakeFirstOrThrow()).id;
      await db
        .updateTable("records")
        .set({ metadata: JSON.stringify({ genre: "blog" }) })
        .where("id", "=", one)
        .execute();
      await add(1);
      expect(await followMetrics(db, ids.ds, "genre", "terms", 10)).toBe(false);
    });
  });

  it("equal the full scan after inserts, metadata updates, moves between datasets and deletes", async () => {
    await withSeededStore("tessera-mdm-", async (db, ids) => {
      let seed = 7;
      const rand = () => {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        return seed / 2147483648;
      };
      const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
      const values = [
        "news",
        "blog",
        "forum",
        "Zeta",
        "é",
        "10",
        3,
        1.5,
        -2,
        10,
        true,
        null,
        ["news", "x"],
        ["x", "x"],
        { a: "news" },
        [1, [2]],
      ];
      const metadata = () => (rand() < 0.1 ? null : JSON.stringify({ genre: pick(values), n: pick(values) }));
      const reference = async (datasetId: string, name: string) => {
        const path = `$."${name}"`;
        const terms = await sql<{ term: unknown; count: number }>`select j.value as term, count(*) as count
          from records r, json_each(r.metadata, ${path}) j
          where r.dataset_id = ${datasetId} and r.metadata is not null and json_valid(r.metadata) and j.type not in ('null', 'object', 'array')
          group by j.value order by count desc, term asc`.execute(db);
        const range = await sql<{
          min: number | null;
          max: number | null;
        }>`select min(json_extract(r.metadata, ${path})) as min, max(json_extract(r.metadata, ${path})) as max
          from records r where r.dataset_id = ${datasetId} and r.metadata is not null and json_valid(r.metadata) and json_type(r.metadata, ${path}) in ('integer', 'real')`.execute(
          db,
        );
        return { terms: terms.rows.map((r) => ({ term: r.term, count: Number(r.count) })), range: range.rows[0] };
      };
      for (let step = 0; step < 120; step++) {
        const ds = pick([ids.ds, ids.other]);
        const records = (await db.selectFrom("records").select("id").where("dataset_id", "=", ds).execute()).map((r) => r.id);
        const op = rand();
        if (op < 0.5 || records.length === 0) {
          await db
            .insertInto("records")
            .values(
              Array.from({ length: 1 + Math.floor(rand() * 5) }, () => ({
                id: randomUUID(),
                dataset_id: ds,
                external_id: null,
                fields: "{}",
                metadata: metadata(),
                status: "pending" as const,
                inserted_at: ts,
                updated_at: ts,
              })),
            )
            .execute();
        } else if (op < 0.7) {
          await db.updateTable("records").set({ metadata: metadata() }).where("id", "=", pick(records)).execute();
        } else if (op < 0.8) {
          await db
            .updateTable("records")
            .set({ dataset_id: ds === ids.ds ? ids.other : ids.ds })
            .where("id", "=", pick(records))
            .execute();
        } else if (op < 0.9) {
          await db.updateTable("records").set({ status: "completed" }).where("id", "=", pick(records)).execute(); // no metadata change
        } else {
          await db.deleteFrom("records").where("id", "=", pick(records)).execute();
        }
        for (const datasetId of [ids.ds, ids.other]) {
          for (const name of ["genre", "n", "missing"]) {
            const expected = await reference(datasetId, name);
            // First folded 3 seqs per transaction: the same figures.
            expect(await termMetrics(db, datasetId, name, 3), `step ${step} ${name}, chunks of 3`).toEqual(expected.terms);
            expect(await numberRange(db, datasetId, name, 3), `step ${step} ${name}, chunks of 3`).toEqual(expected.range);
            expect(await termMetrics(db, datasetId, name), `step ${step} ${name}, then in one chunk`).toEqual(expected.terms);
            expect(await numberRange(db, datasetId, name), `step ${step} ${name}, then in one chunk`).toEqual(expected.range);
          }
        }
      }
    });
  }, 120_000);
});
