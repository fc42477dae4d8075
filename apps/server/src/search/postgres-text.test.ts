import { randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openPgliteStore } from "../testing/pglite-store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { Builder, queryRows, textWords } from "./postgres-sql.js";
import { PostgresSearch } from "./postgres-search.js";
import { PostgresText } from "./postgres-text.js";
import { PostgresTextVocabulary } from "./postgres-text-vocabulary.js";
import type { SearchQuery } from "./search-port.js";
import { ANSWERED_MAX } from "./answered-filter.js";
import { answerRecords, copyDataset, expectSameOrLowerTotal, insertRecords, seedSearchData, answerWhere } from "./search-port.suite.js";

// A real PostgreSQL when TESSERA_TEST_DATABASE_URL names one (stage 60), else PGlite.
const onPostgres = testDatabaseUrl() !== null;

describe(`PostgreSQL text search order (${onPostgres ? "PostgreSQL" : "PGlite"})`, () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  beforeAll(async () => {
    store = onPostgres ? await openTestPostgresStore() : await openPgliteStore();
    data = await seedSearchData(store);
    // Scores that do not follow record order: the words' frequencies and the texts' lengths vary with j.
    await store.db
      .insertInto("records")
      .values(
        Array.from({ length: 40 }, (_, j) => ({
          id: randomUUID(),
          dataset_id: data.ids.ds,
          external_id: `w-${j}`,
          fields: JSON.stringify({
            text: `quokka ${"wombat ".repeat(1 + ((j * 7) % 5))}${"pad ".repeat((j * 3) % 4)}zebu${j % 2 === 0 ? " numbat" : ""}`,
            context: j % 3 === 0 ? "wombat quokka" : "other",
          }),
          metadata: null,
          status: "pending",
          inserted_at: `2024-01-02T00:00:${String(j).padStart(2, "0")}`,
          updated_at: "2024-01-02T00:00:00",
        })),
      )
      .execute();
  }, 60_000);
  afterAll(async () => {
    await store?.close();
  });

  /** Every matching record by ts_rank (records_fts alone), then in windows of `window` records in seq order, each by score then seq. */
  const reference = async (q: string, field: string | null, window: number, datasetId = data.ids.ds) => {
    const b = new Builder(null);
    const tsq = b.tsQuery(textWords(q));
    const rows = await queryRows<{ seq: string | number; id: string; score: number }>(
      store.db,
      `SELECT f.record_seq AS seq, r.id AS id, max(ts_rank(f.tsv, (${tsq})))::float8 AS score FROM records_fts f JOIN records r ON r.seq = f.record_seq
       WHERE r.dataset_id = ${b.p(datasetId)} AND f.tsv @@ (${tsq})${field ? ` AND f.field = ${b.p(field)}` : ""} GROUP BY f.record_seq, r.id`,
      b.params,
    );
    const bySeq = rows.map((r) => ({ ...r, seq: Number(r.seq) })).sort((a, c) => a.seq - c.seq);
    const out: { recordId: string; score: number }[] = [];
    for (let i = 0; i < bySeq.length; i += window)
      for (const r of bySeq.slice(i, i + window).sort((a, c) => c.score - a.score || a.seq - c.seq))
        out.push({ recordId: r.id, score: r.score });
    return out;
  };
  const query = (q: string, field: string | null, offset: number, limit: number): SearchQuery => ({
    datasetId: data.ids.ds,
    userId: null,
    text: { q, field },
    vector: null,
    sort: [],
    offset,
    limit,
    filters: [],
  });

  it("ranks several words, a prefix or one field window by window: each stretch of matching records by score; exact when one holds them all", async () => {
    let differs = 0;
    // The dataset's vocabulary: a prefix read as the words it covers through the buckets (postgres-text-vocabulary.ts).
    const vocabulary = new PostgresTextVocabulary(store.db);
    await vocabulary.read(data.ids.ds);
    for (const [q, field] of [
      ["quokka wombat", null],
      ["zebu wombat quokka", null],
      ["womb*", null],
      ["wombat", "text"],
    ] as const)
      for (const window of [7, 1000]) {
        const expected = await reference(q, field, window);
        expect(expected.length).toBeGreaterThan(15);
        if (window === 7 && JSON.stringify(expected) !== JSON.stringify(await reference(q, field, 1000))) differs++;
        // The matches through the index's buckets (scored as read), the index without them (scored after), a prefix's probe alone,
        // a probe of 9 rows then the walk or the index, a prefix as its words (postgres-text-walk.ts).
        for (const walk of [
          {},
          { firstBuckets: 1 },
          { path: "index" as const },
          { probeRows: 9 },
          { probeRows: 9, walkMinDensity: 2 },
          { vocabulary },
          { vocabulary, firstBuckets: 1 },
        ]) {
          const text = new PostgresText(store.db, undefined, null, window, true, walk);
          for (const [offset, limit] of [
            [0, 10],
            [12, 10],
            [30, 20],
          ] as const) {
            const got = await text.search(query(q, field, offset, limit));
            expect(got.hits, JSON.stringify(walk)).toEqual(expected.slice(offset, offset + limit));
            expect(got.total).toBe(expected.length);
          }
        }
      }
    expect(differs).toBe(4); // a window of 7 records is not the full ranking, for every query
    // One plain word over all fields keeps the full ranking.
    const plain = await new PostgresText(store.db, undefined, null, 3).search(query("wombat", null, 0, 30));
    expect(plain.hits).toEqual((await reference("wombat", null, 10_000)).slice(0, 30));
  });

  it("grows a windowed page by the windows it lacks, read after those it has, when none of the first windows pass (the queue's head submitted)", async () => {
    // A dataset of its own: 300 matches in seq order, the first 100 failing the filter (as the records a team already submitted).
    const ds = await copyDataset(store, data.ids.ds);
    const records = await insertRecords(store, ds, 300, (i) => ({
      external_id: `k-${i}`,
      fields: JSON.stringify({ text: `kiwi fruit ${"ripe ".repeat(i % 4)}${"pad ".repeat((i * 7) % 5)}` }),
      metadata: "null",
    }));
    const passing = new Set(records.slice(100).map((r) => r.id));
    const ids = { type: "terms" as const, scope: { entity: "record" as const, property: "id" as const }, values: [...passing] };
    // A prefix through its probe and walk, and as the words of the dataset's vocabulary through the buckets.
    const vocabulary = new PostgresTextVocabulary(store.db);
    await vocabulary.read(ds);
    for (const [q, walk] of [
      ["kiwi fruit", {}],
      ["kiw*", {}],
      ["kiw*", { vocabulary }],
    ] as const) {
      const expected = (await reference(q, null, 7, ds)).filter((h) => passing.has(h.recordId));
      for (const [offset, limit] of [
        [0, 10],
        [25, 10],
      ] as const) {
        const text = new PostgresText(store.db, undefined, null, 7, true, walk);
        const got = await text.search({ ...query(q, null, offset, limit), datasetId: ds, filters: [ids], totalBound: 10_000 });
        expect(got.hits).toEqual(expected.slice(offset, offset + limit));
        // The first page: 64 candidates in 10 windows of 7, none passing, then twice the windows read (20), not the ~1,000
        // records the pass rate of 1 in 64 asked for (every match here, 300); the second asks 137 candidates at once (20 windows).
        const read = text.cachedBytes / 16;
        expect(read).toBe(140);
        // The total: the passing records among the windows read, a lower bound.
        expect(got).toMatchObject({ total: read - 100, totalIsLowerBound: true });
      }
    }
  });

  it("bounds a windowed query's total by the windows read: exact when they hold every match, else the passing records among them as a lower bound", async () => {
    const withBound = (
      q: string,
      field: string | null,
      offset: number,
      limit: number,
      totalBound: number,
      filters: SearchQuery["filters"] = [],
    ) => ({
      ...query(q, field, offset, limit),
      totalBound,
      filters,
    });
    for (const [q, field] of [
      ["quokka wombat", null],
      ["womb*", null],
      ["wombat", "text"],
    ] as const) {
      // The matches in record order, with their ids (the reference's windows of 10,000: one window, every match).
      const bySeq = await (async () => {
        const b = new Builder(null);
        const tsq = b.tsQuery(textWords(q));
        return queryRows<{ id: string }>(
          store.db,
          `SELECT r.id AS id FROM records r WHERE r.dataset_id = ${b.p(data.ids.ds)} AND EXISTS (SELECT 1 FROM records_fts f
            WHERE f.record_seq = r.seq AND f.tsv @@ (${tsq})${field ? ` AND f.field = ${b.p(field)}` : ""}) ORDER BY r.seq`,
          b.params,
        );
      })();
      expect(bySeq.length).toBeGreaterThan(20);
      // A page of 0 reads one window of 7: 7 matches, more exist.
      expect(await new PostgresText(store.db, undefined, null, 7).search(withBound(q, field, 0, 0, 10_000))).toEqual({
        hits: [],
        total: 7,
        totalIsLowerBound: true,
      });
      // A filter: the records passing among those 7 (every third of the matches passes).
      const some = bySeq.filter((_, i) => i % 3 === 0).map((r) => r.id);
      const ids = { type: "terms" as const, scope: { entity: "record" as const, property: "id" as const }, values: some };
      expect(await new PostgresText(store.db, undefined, null, 7).search(withBound(q, field, 0, 0, 10_000, [ids]))).toEqual({
        hits: [],
        total: 3, // matches 0, 3 and 6
        totalIsLowerBound: true,
      });
      // A first page reads whole windows of at least 64 records: every match here, so the total is exact (and bounded).
      const page = await new PostgresText(store.db, undefined, null, 7).search(withBound(q, field, 0, 10, 10_000, [ids]));
      expect(page.total).toBe(some.length);
      expect(page.totalIsLowerBound).toBeUndefined();
      expect(await new PostgresText(store.db, undefined, null, 7).search(withBound(q, field, 0, 10, 5))).toMatchObject({
        total: 10, // the bound is at least the end of the page asked
        totalIsLowerBound: true,
      });
      // Windows of 1,000 (the default) hold every match: the exact total.
      expect((await new PostgresText(store.db).search(withBound(q, field, 0, 0, 10_000))).total).toBe(bySeq.length);
    }
  });

  it("searches the Submitted / Discarded / Draft views from the caller's answered records: the plain path's page order and total", async () => {
    const w = await store.db.selectFrom("records").select(["id", "external_id"]).where("external_id", "like", "w-%").execute();
    const byJ = (f: (j: number) => boolean) => w.filter((r) => f(Number(r.external_id!.slice(2))));
    await answerRecords(
      store,
      byJ((j) => j % 4 !== 1),
      data.ids.u1,
      "submitted",
    );
    await answerRecords(
      store,
      byJ((j) => j % 4 === 1),
      data.ids.u1,
      "draft",
    );
    await answerRecords(
      store,
      byJ((j) => j % 2 === 0),
      data.ids.u2,
      "submitted",
    );
    const statusFilter = (values: string[]) => ({ type: "terms" as const, scope: { entity: "response_status" as const }, values });
    const completed = { type: "terms" as const, scope: { entity: "record" as const, property: "status" as const }, values: ["pending"] };
    let windowsDiffer = 0;
    for (const window of [7, 1000]) {
      const fast = new PostgresText(store.db, undefined, null, window);
      const plain = new PostgresText(store.db, undefined, null, window, false);
      for (const [q, field] of [
        ["wombat", null],
        ["quokka wombat", null],
        ["zebu wombat quokka", null],
        ["womb*", null],
        ["wombat", "text"],
        ["numbat", null],
      ] as const)
        for (const filters of [[statusFilter(["submitted"])], [statusFilter(["submitted", "draft"]), completed], [statusFilter(["draft"])]])
          for (const [offset, limit, totalBound] of [
            [0, 10, null],
            [5, 10, null],
            [0, 50, null],
            [0, 3, 4],
          ] as const) {
            const base = { ...query(q, field, offset, limit), userId: data.ids.u1, filters, totalBound };
            const expected = await plain.search(base);
            const before = fast.answeredSearches;
            const got = await fast.search(base);
            expect(fast.answeredSearches).toBe(before + 1);
            // The other path's total may be a lower bound counted from some of the word's records (READ_PER_BOUND); this one is exact.
            expectSameOrLowerTotal(expected, got, base, JSON.stringify(base));
            if (filters.length === 1 && filters[0]!.values.length === 1 && filters[0]!.values[0] === "submitted" && limit === 50) {
              expect(expected.total).toBeGreaterThan(10);
              if (window === 7) {
                const unwindowed = await new PostgresText(store.db, undefined, null, 1000, false).search(base);
                if (JSON.stringify(unwindowed.hits) !== JSON.stringify(expected.hits)) windowsDiffer++;
              }
            }
          }
      expect(plain.answeredSearches).toBe(0);
      // An admin (no caller) and a filter with `pending`: the other paths.
      await fast.search({ ...query("wombat", null, 0, 10), filters: [statusFilter(["submitted"])] });
      await fast.search({ ...query("wombat", null, 0, 10), userId: data.ids.u1, filters: [statusFilter(["submitted", "pending"])] });
      expect(fast.answeredSearches).toBe(6 * 3 * 4);
    }
    expect(windowsDiffer).toBe(4); // windows of 7 records reorder the answered records of every windowed query
  });

  it("searches the Submitted view of a caller with more than ANSWERED_MAX answered records as the plain path does", async () => {
    // Records answered through the dataset with gaps (12 of every 13), words of every frequency.
    const many = await insertRecords(store, data.ids.ds, ANSWERED_MAX + 600, (i) => ({
      external_id: `k-${i}`,
      fields: JSON.stringify({
        text: `${i % 3 === 0 ? "kiwifruit kiwifruit" : "kiwifruit"}${i % 4 === 0 ? " mango" : ""}${i % 97 === 5 ? " papaya papaya" : ""} ${"pad ".repeat(i % 5)}`,
        context: i % 7 === 0 ? "mango kiwifruit" : "other",
      }),
      metadata: JSON.stringify({ genre: i % 3 === 0 ? "blog" : "news" }),
    }));
    // In steps of 500 (PGlite's protocol parser refuses larger inserts here).
    const submitted = many.filter((_, i) => i % 13 !== 0);
    for (let i = 0; i < submitted.length; i += 500) await answerRecords(store, submitted.slice(i, i + 500), data.ids.u1, "submitted");
    await answerWhere(store, many, (i) => i % 13 === 0, data.ids.u1, "draft");
    const search = new PostgresSearch(store.db, { vectorSearch: false, rankAhead: { minRecords: 5, listLength: 12 } });
    const plain = new PostgresSearch(store.db, { vectorSearch: false, textCache: false });
    expect(await search.rankAhead!.rank(data.ids.ds)).toBe(true);
    // The same pages as the uncached path; the same totals as the other paths of text search (bounded by the filter bound).
    const others = new PostgresText(store.db, undefined, search.rankAhead, 1000, false);
    const statusFilter = (values: string[]) => ({ type: "terms" as const, scope: { entity: "response_status" as const }, values });
    const genre = { type: "terms" as const, scope: { entity: "metadata" as const, name: "genre" }, values: ["blog"] };
    let compared = 0;
    for (const q of ["kiwifruit", "mango", "papaya", "kiwifruit mango", "nothingsuch"])
      for (const filters of [[statusFilter(["submitted"])], [statusFilter(["submitted", "draft"]), genre], [statusFilter(["draft"])]])
        for (const [offset, totalBound] of [
          [0, null],
          [40, 10_000],
          [0, 100],
        ] as const) {
          const base = { ...query(q, null, offset, 10), userId: data.ids.u1, filters, totalBound };
          const expected = await others.search(base);
          const got = await search.search(base);
          // The answered records' count is exact up to the bound; the other paths' count of a word with a
          // metadata filter reads a capped number of the word's records, a lower bound that may be lower.
          expectSameOrLowerTotal(expected, got, base, JSON.stringify(base));
          expect(got.hits).toEqual((await plain.search(base)).hits);
          const exact = await plain.search({ ...base, totalBound: null, filterBound: null });
          if (got.totalIsLowerBound) expect(got.total, JSON.stringify(base)).toBeLessThan(exact.total);
          else expect(got.total, JSON.stringify(base)).toBe(exact.total);
          if (expected.hits.length === 10) compared++;
        }
    expect(compared).toBeGreaterThan(15);
    // Beyond ANSWERED_MAX the plain words ranked ahead from the answered records (the others by the other paths); the drafts (fewer) always.
    const text = (search as unknown as { text: PostgresText }).text;
    expect(text.answeredAhead).toBeGreaterThan(3);
    expect(text.answeredSearches).toBeGreaterThan(text.answeredAhead + 10);
    expect(text.answeredSearches).toBeLessThan(5 * 3 * 3);
    // Another dataset's search, and an admin's (no caller): the other paths.
    expect(
      await search.search({
        ...query("kiwifruit", null, 0, 10),
        datasetId: data.ids.other,
        userId: data.ids.u1,
        filters: [statusFilter(["submitted"])],
      }),
    ).toEqual(
      await plain.search({
        ...query("kiwifruit", null, 0, 10),
        datasetId: data.ids.other,
        userId: data.ids.u1,
        filters: [statusFilter(["submitted"])],
      }),
    );
  }, 120_000);
});
