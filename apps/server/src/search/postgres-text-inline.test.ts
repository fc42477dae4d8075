import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Store } from "../db/store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { PostgresSearch } from "./postgres-search.js";
import { PostgresTextInline } from "./postgres-text-inline.js";
import type { SearchQuery } from "./search-port.js";
import { insertRecords, seedSearchData } from "./search-port.suite.js";

/** A text of 300 distinct words (a tsvector of ~4 KB: beyond the 2 KB at which PostgreSQL moves an EXTENDED value out of line). */
const longText = (i: number) => `needle${i % 3} ` + Array.from({ length: 300 }, (_, k) => `w${k}x${i % 5}`).join(" ");

/**
 * Migration 0028 and the rewrite of older rows (postgres-text-inline.ts), on a real PostgreSQL (stage
 * 60): where a tsvector is stored is PostgreSQL's own storage, which PGlite would not show the same way.
 */
describe.skipIf(!testDatabaseUrl())("PostgreSQL: text search vectors inline (migration 0028)", () => {
  let store: Store;
  let ds: string;
  beforeAll(async () => {
    store = await openTestPostgresStore();
    ds = (await seedSearchData(store)).ids.ds;
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  /** The dataset's records_fts rows whose tsvector is out of line, and all of them. */
  const stored = async () => {
    const { rows } = await sql<{ external: number; all: number }>`select
        count(*) filter (where pg_column_toast_chunk_id(f.tsv) is not null)::int as external, count(*)::int as "all"
      from records_fts f join records r on r.seq = f.record_seq where r.dataset_id = ${ds}`.execute(store.db);
    return rows[0]!;
  };
  const query = (q: string): SearchQuery => ({
    datasetId: ds,
    userId: null,
    text: { q, field: null },
    vector: null,
    sort: [],
    offset: 0,
    limit: 50,
    filters: [],
  });

  it("stores the tsvectors of new records in their rows, and moves those of older rows there in resumable batches, searches unchanged", async () => {
    const before = await stored();
    // Records written after the migration: inline, however long their text.
    const fresh = await insertRecords(store, ds, 3, (i) => ({
      external_id: `fresh-${i}`,
      fields: JSON.stringify({ text: longText(i) }),
      metadata: "null",
    }));
    expect(await stored()).toEqual({ external: 0, all: before.all + 3 });
    // Records written as before the migration (the column's storage then): out of line.
    await sql`alter table records_fts alter column tsv set storage external`.execute(store.db);
    const old = await insertRecords(store, ds, 20, (i) => ({
      external_id: `old-${i}`,
      fields: JSON.stringify({ text: longText(i), summary: "short summary" }),
      metadata: "null",
    }));
    await sql`alter table records_fts alter column tsv set storage main`.execute(store.db);
    expect((await stored()).external).toBe(20);
    // What the migration writes for a database with records: the range of seqs to rewrite.
    const seqs = [...fresh, ...old].map((r) => Number(r.seq));
    await sql`insert into records_fts_inline (id, next_seq, last_seq) values (1, ${Math.min(...seqs)}, ${Math.max(...seqs)})`.execute(
      store.db,
    );
    const port = new PostgresSearch(store.db, { vectorSearch: false, textCache: false });
    const search = async (q: string) => (await port.search(query(q))).hits.map((h) => [h.recordId, h.score]);
    const needle = await search("needle1");
    const phrase = await search("needle2 w7x2");
    expect(needle.length).toBeGreaterThan(0);
    expect(phrase.length).toBeGreaterThan(0);

    // Two replicas: one batch at a time (the other skips the locked range); 5 seqs a batch.
    const [a, b] = [new PostgresTextInline(store.db, { batchSeqs: 5 }), new PostgresTextInline(store.db, { batchSeqs: 5 })];
    const first = await Promise.all([a.batch(), b.batch()]);
    expect(first.filter(Boolean).length).toBeGreaterThanOrEqual(1);
    // Stopped and started again: resumes after the last batch.
    const { rows: range } = await sql<{ next: string }>`select next_seq as next from records_fts_inline`.execute(store.db);
    expect(Number(range[0]!.next)).toBeGreaterThan(Math.min(...seqs));
    await new PostgresTextInline(store.db, { batchSeqs: 5, restShare: 0 }).run();
    expect(await stored()).toEqual({ external: 0, all: before.all + 3 + 40 });
    expect(a.rewritten + b.rewritten).toBeLessThan(20);
    const { rows: left } = await sql<{ n: number }>`select count(*)::int as n from records_fts_inline`.execute(store.db);
    expect(left[0]!.n).toBe(0);
    // The same matches and scores.
    expect(await search("needle1")).toEqual(needle);
    expect(await search("needle2 w7x2")).toEqual(phrase);
    // Nothing left: a batch does nothing.
    expect(await new PostgresTextInline(store.db).batch()).toBe(false);
  });
});
