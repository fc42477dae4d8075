import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sql } from "kysely";
import type { Store } from "../db/store.js";
import { encodeVector } from "../records/read.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { PostgresSearch } from "./postgres-search.js";
import { farSideIndexName, PostgresVectorIndexes } from "./postgres-vector-index.js";
import { PostgresVectorWords } from "./postgres-vector-words.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { insertRecords } from "./search-port.suite.js";

const onServer = Boolean(testDatabaseUrl());
const N = 1200;
const DIMS = 16;

/** A deterministic pseudo-random unit vector (a sine hash: the test only needs distinct directions). */
function vectorOf(seed: number): number[] {
  const v = Array.from({ length: DIMS }, (_, d) => Math.sin(seed * 12.9898 + d * 78.233) * 43758.5453 - 0.5).map(
    (x) => x - Math.floor(x) - 0.5,
  );
  const norm = Math.hypot(...v);
  return v.map((x) => Math.fround(x / norm));
}
const cosine = (a: number[], b: number[]) => a.reduce((s, x, i) => s + x * b[i]!, 0);

/** Record i's words: "record i" and some of a small vocabulary (each in a share of the records), one in another field. */
function textOf(i: number): { text: string; note: string } {
  const words = [`record ${i}`];
  if (i % 10 === 0) words.push("alpha");
  if (i % 3 === 0) words.push("beta");
  if (i % 7 === 0) words.push("gamma-delta");
  if (i % 11 === 0) words.push("café");
  return { text: words.join(" "), note: i % 5 === 0 ? "alpha" : "plain" };
}

/**
 * The word signatures of migration 0039 on a real PostgreSQL with pgvector: kept by the triggers after inserts,
 * field updates and deletes, filled in the background for vectors written before, and similarity with a word
 * through the IVFFlat candidates equal to the exact answer among the records that hold the word (the signature only
 * skips records that lack it).
 */
describe.skipIf(!onServer)("similarity with a word: the vectors' word signatures (PostgreSQL server)", () => {
  let store: Store;
  const ids: string[] = [];
  const texts = new Map<string, { text: string; note: string }>();
  const deleted = new Set<string>();
  const datasetId = randomUUID();
  const settingsId = randomUUID();
  const otherDataset = randomUUID();
  const otherSettings = randomUUID();
  const genre = (i: number) => (i % 2 === 0 ? "news" : "blog");

  beforeAll(async () => {
    store = await openTestPostgresStore();
    expect(store.vectorSearch).toBe(true);
    const ts = "2024-01-01T00:00:00";
    const ws = randomUUID();
    await store.db
      .insertInto("workspaces")
      .values({ id: ws, name: `ws-${ws}`, inserted_at: ts, updated_at: ts })
      .execute();
    for (const [id, settings] of [
      [datasetId, settingsId],
      [otherDataset, otherSettings],
    ] as const) {
      await sql`insert into datasets (id, name, guidelines, allow_extra_metadata, status, distribution, metadata, workspace_id, inserted_at, updated_at, last_activity_at)
        values (${id}, ${`words-${id}`}, null, 1, 'ready', '{"strategy":"overlap","min_submitted":1}', null, ${ws}, ${ts}, ${ts}, ${ts})`.execute(
        store.db,
      );
      await sql`insert into vectors_settings (id, dataset_id, name, title, dimensions, inserted_at, updated_at)
        values (${settings}, ${id}, 'emb', 'Emb', ${DIMS}, ${ts}, ${ts})`.execute(store.db);
      const rows = await insertRecords(store, id, N, (i) => ({
        external_id: `r${i}`,
        fields: JSON.stringify(textOf(i)),
        metadata: JSON.stringify({ genre: genre(i) }),
      }));
      // The other dataset's records hold the same words, with vectors near the first dataset's.
      await store.db
        .insertInto("record_vectors")
        .values(
          rows.map(({ id: recordId }, i) => ({ vector_settings_id: settings, record_id: recordId, vector: encodeVector(vectorOf(i)) })),
        )
        .execute();
      if (id === datasetId) {
        ids.push(...rows.map((r) => r.id));
        rows.forEach((r, i) => texts.set(r.id, textOf(i)));
      }
    }
    await sql`analyze records, record_vectors, record_search`.execute(store.db);
    await new PostgresVectorIndexes(store.db, { settleMs: 0, minVectors: 0 }).tick();
    expect(await indexValid()).toBe(true);
  }, 120_000);
  afterAll(async () => {
    await store?.close();
  });

  const indexValid = async () => {
    const { rows } = await sql<{ valid: boolean }>`select i.indisvalid as valid from pg_class c join pg_index i on i.indexrelid = c.oid
      where c.relname = ${farSideIndexName(settingsId, DIMS)}`.execute(store.db);
    return Boolean(rows[0]?.valid);
  };
  /** Vectors whose signature is not their record's words' (NULL counts as wrong). */
  const wrongSignatures = async () => {
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from record_vectors v join records r on r.id = v.record_id
      join record_search x on x.seq = r.seq where v.words is distinct from tessera_words_signature(x.tsv)`.execute(store.db);
    return Number(rows[0]!.n);
  };
  const query = (q: string, order: "most_similar" | "least_similar", extra: Partial<SearchQuery> = {}): SearchQuery => ({
    datasetId,
    userId: null,
    text: { q, field: null },
    vector: { settingsId, value: vectorOf(5), order, excludeRecordId: null },
    filters: [],
    sort: [],
    offset: 0,
    limit: 10,
    ...extra,
  });
  /** The exact answer: the live records whose words pass `has`, by cosine similarity to record 5's vector. */
  const exact = (has: (t: { text: string; note: string }) => boolean, order: "most_similar" | "least_similar", limit = 10) =>
    ids
      .map((id, i) => ({ id, i }))
      .filter(({ id }) => !deleted.has(id) && has(texts.get(id)!))
      .sort((x, y) => (order === "most_similar" ? -1 : 1) * (cosine(vectorOf(5), vectorOf(x.i)) - cosine(vectorOf(5), vectorOf(y.i))))
      .slice(0, limit)
      .map(({ id }) => id);
  const words = (t: { text: string; note: string }) => new Set(`${t.text} ${t.note}`.split(/[\s-]+/));
  // Every list probed: the candidates' answer is the exact one.
  const search = (q: SearchQuery) =>
    new PostgresSearch(store.db, { vectorSearch: true, probes: 100 }).search(q).then((r) => r.hits.map((h) => h.recordId));

  it("keeps each vector's signature of its record's words after inserts, field updates and deletes", async () => {
    expect(await wrongSignatures()).toBe(0);
    const { rows } = await sql<{ n: number | string }>`select count(*) as n from record_vectors where words is null`.execute(store.db);
    expect(Number(rows[0]!.n)).toBe(0);
    // A record's fields updated: its vectors' signature follows (the word found through them at once).
    const changed = ids[12]!;
    texts.set(changed, { text: "record 12 zeta", note: "plain" });
    await store.db
      .updateTable("records")
      .set({ fields: JSON.stringify(texts.get(changed)) })
      .where("id", "=", changed)
      .execute();
    expect(await wrongSignatures()).toBe(0);
    expect(await search(query("zeta", "most_similar"))).toEqual([changed]);
    expect(await search(query("beta", "most_similar", { limit: 400 }))).not.toContain(changed);
    // A vector written again (the ingest's upsert) keeps it; a record deleted takes its vectors with it.
    await sql`insert into record_vectors (vector_settings_id, record_id, vector) values (${settingsId}, ${changed}, ${encodeVector(vectorOf(12))})
      on conflict (vector_settings_id, record_id) do update set vector = excluded.vector`.execute(store.db);
    expect(await wrongSignatures()).toBe(0);
    const gone = ids[30]!;
    await store.db.deleteFrom("records").where("id", "=", gone).execute();
    deleted.add(gone);
    expect(await wrongSignatures()).toBe(0);
    expect(await search(query("alpha", "most_similar", { limit: 200 }))).not.toContain(gone);
  });

  it("answers as the exact ranking of the records with the word: present, absent, phrase, prefix, hyphen, accent, another field, filters, another dataset", async () => {
    const news: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["news"] };
    const newsOnly = (i: string) => genre(ids.indexOf(i)) === "news";
    for (const order of ["most_similar", "least_similar"] as const) {
      expect(await search(query("beta", order, { limit: 30 }))).toEqual(exact((t) => words(t).has("beta"), order, 30));
      expect(await search(query("alpha", order, { limit: 30 }))).toEqual(exact((t) => words(t).has("alpha"), order, 30));
      expect(await search(query("nothinglikethis", order))).toEqual([]);
      // A phrase: every word in one field (alpha in the note and beta in the text do not match).
      expect(await search(query("alpha beta", order, { limit: 30 }))).toEqual(
        exact((t) => t.text.includes("alpha") && t.text.includes("beta"), order, 30),
      );
      // A prefix is not in the signature: every candidate's words are read.
      expect(await search(query("bet*", order, { limit: 30 }))).toEqual(exact((t) => words(t).has("beta"), order, 30));
      expect(await search(query("gamma-delta", order, { limit: 30 }))).toEqual(exact((t) => t.text.includes("gamma-delta"), order, 30));
      expect(await search(query("cafe", order, { limit: 30 }))).toEqual(exact((t) => words(t).has("café"), order, 30));
      expect(await search(query("beta", order, { limit: 30, filters: [news] }))).toEqual(
        exact((t) => words(t).has("beta"), order, 400)
          .filter(newsOnly)
          .slice(0, 30),
      );
      expect(await search(query("  ", order))).toEqual([]);
    }
    // The other dataset's records (the same words, the same vectors) never appear.
    const other = await search(query("beta", "most_similar", { limit: 400 }));
    expect(other.every((id) => ids.includes(id))).toBe(true);
    // The signature test on the vector's row: every record with the word passes it, few others do.
    const tested = await sql<{ id: string; maybe: boolean }>`select v.record_id as id, tessera_words_maybe(v.words,
        (select array_agg(hashtext(l)) from unnest(tsvector_to_array(to_tsvector('tessera_search', 'beta'))) l)) as maybe
      from record_vectors v where v.vector_settings_id = ${settingsId}`.execute(store.db);
    const holders = tested.rows.filter((r) => words(texts.get(r.id)!).has("beta"));
    expect(holders.length).toBe(398); // 400, less record 12 (changed) and 30 (deleted)
    expect(holders.every((r) => Boolean(r.maybe))).toBe(true);
    const others = tested.rows.filter((r) => !words(texts.get(r.id)!).has("beta"));
    expect(others.filter((r) => Boolean(r.maybe)).length).toBeLessThan(others.length * 0.1);
  });

  it("fills the signatures of vectors written before the migration in the background; the answers are the same meanwhile", async () => {
    const want = await search(query("beta", "least_similar", { limit: 30 }));
    await sql`update record_vectors set words = null`.execute(store.db);
    const { rows } = await sql<{ lo: number; hi: number }>`select min(seq) as lo, max(seq) as hi from records`.execute(store.db);
    await sql`insert into record_vectors_words_fill (id, next_seq, last_seq) values (1, ${rows[0]!.lo}, ${rows[0]!.hi})`.execute(store.db);
    // Without signatures (NULL: the tsvector decides) the same answer.
    expect(await search(query("beta", "least_similar", { limit: 30 }))).toEqual(want);
    const job = new PostgresVectorWords(store.db, { batchSeqs: 500, restShare: 0 });
    expect(await job.batch()).toBe(true);
    expect(await wrongSignatures()).toBeGreaterThan(0);
    expect(await search(query("beta", "least_similar", { limit: 30 }))).toEqual(want);
    await job.run();
    expect(await wrongSignatures()).toBe(0);
    expect(job.filled).toBe(2 * N - deleted.size);
    const left = await sql<{ n: number | string }>`select count(*) as n from record_vectors_words_fill`.execute(store.db);
    expect(Number(left.rows[0]!.n)).toBe(0);
    expect(await job.batch()).toBe(false);
    expect(await search(query("beta", "least_similar", { limit: 30 }))).toEqual(want);
  });
});
