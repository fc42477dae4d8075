import { sql } from "kysely";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Store } from "../db/store.js";
import { openTestPostgresStore, testDatabaseUrl } from "../testing/pg-test-database.js";
import { seededRandom } from "../testing/random.js";
import { addWordRecords } from "../testing/word-records.js";
import { PostgresRankAhead } from "./postgres-rank-ahead.js";
import { PostgresText } from "./postgres-text.js";
import type { SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";

// A real PostgreSQL (stage 60, pgone.sh).
const onPostgres = testDatabaseUrl() !== null;

/**
 * A database ranked with shorter lists than RANKED_AHEAD (an upgrade: 1,024 → 8,192) gets them lengthened once, in the
 * background, at the same text version: the same lists as a full ranking of that length, the SDK's deep pages equal to the
 * plain path's, another dataset's rows untouched.
 */
describe.skipIf(!onPostgres)("PostgreSQL ranking ahead: short lists lengthened at the same version", () => {
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  beforeAll(async () => {
    store = await openTestPostgresStore();
    data = await seedSearchData(store);
    await addWordRecords(store.db, data.ids, seededRandom(4242), 3_000, 400);
  }, 300_000);
  afterAll(async () => {
    await store?.close();
  });

  type Row = {
    dataset_id: string;
    word: string;
    version: string;
    records: number;
    repeated: number;
    seqs: string[];
    counts: number[] | null;
  };
  const stored = async () =>
    (
      await sql<Row>`SELECT dataset_id, word, version, records, repeated, seqs, counts FROM text_ranked_ahead ORDER BY dataset_id, word`.execute(
        store.db,
      )
    ).rows;
  const runs = async () =>
    (
      await sql<{
        dataset_id: string;
        version: string;
      }>`SELECT dataset_id, version FROM text_ranked_ahead_runs ORDER BY dataset_id`.execute(store.db)
    ).rows;
  /** The SDK's page of 256 of a word (no filters, no sort). */
  const page = (q: string, offset: number, datasetId = data.ids.ds): SearchQuery => ({
    datasetId,
    userId: null,
    vector: null,
    filters: [],
    sort: [],
    limit: 256,
    text: { q, field: null },
    offset,
  });
  /** Every page until an empty one, from the stored ranking and from the plain path (no ranking ahead): equal. */
  const samePages = async (rankAhead: PostgresRankAhead, q: string, datasetId = data.ids.ds) => {
    const ahead = new PostgresText(store.db, undefined, rankAhead);
    const plain = new PostgresText(store.db);
    for (let offset = 0; ; offset += 256) {
      const [a, p] = [await ahead.search(page(q, offset, datasetId)), await plain.search(page(q, offset, datasetId))];
      expect(a, `${q} at ${offset}`).toEqual(p);
      if (p.hits.length === 0) return offset;
    }
  };

  it("lengthens the short lists of the current version only, as a full ranking of that length would, and once", async () => {
    const short = { minRecords: 5, listLength: 64, firstRead: 16 };
    const long = { minRecords: 5, listLength: 1_000, firstRead: 16 };
    for (const ds of [data.ids.ds, data.ids.other]) expect(await new PostgresRankAhead(store.db, short).rank(ds)).toBe(true);
    const before = await stored();
    const runsBefore = await runs();
    const common = before.find((r) => r.dataset_id === data.ids.ds && r.word === "'common'")!;
    expect(common.repeated).toBeGreaterThan(1_000); // listed: 64, then 1,000 of more
    expect(common.seqs).toHaveLength(64);
    expect(before.some((r) => r.dataset_id === data.ids.ds && r.repeated === 0)).toBe(true); // nothing to list

    const rankAhead = new PostgresRankAhead(store.db, long);
    const version = Number(common.version);
    // Another replica's run in progress (unfinished claim): not lengthened meanwhile.
    await sql`UPDATE text_ranked_ahead_runs SET finished_at = NULL WHERE dataset_id = ${data.ids.ds}`.execute(store.db);
    expect(await rankAhead.lengthen(data.ids.ds, version)).toBe(false);
    await sql`UPDATE text_ranked_ahead_runs SET finished_at = now() WHERE dataset_id = ${data.ids.ds}`.execute(store.db);
    expect(await rankAhead.lengthen(data.ids.ds, version)).toBe(true);
    const after = await stored();
    // Same version and counts; each list of this dataset as long as min(1,000, repeated); the other dataset's as before.
    expect(after.map(({ seqs: _, counts: __, ...r }) => r)).toEqual(before.map(({ seqs: _, counts: __, ...r }) => r));
    for (const r of after) {
      expect(r.seqs.length, `${r.dataset_id} ${r.word}`).toBe(Math.min(r.dataset_id === data.ids.ds ? 1_000 : 64, r.repeated));
      // Each listed record's occurrences beside it (migration 0040), in the list's order: most first.
      expect(r.counts, `${r.dataset_id} ${r.word}`).toHaveLength(r.seqs.length);
      expect(r.counts, `${r.dataset_id} ${r.word}`).toEqual([...r.counts!].sort((a, b) => b - a));
      for (const n of r.counts!) expect(n).toBeGreaterThanOrEqual(2);
    }
    expect(after.filter((r) => r.dataset_id === data.ids.other)).toEqual(before.filter((r) => r.dataset_id === data.ids.other));
    // The lists a full ranking of that length stores (at the same version: the run forgotten).
    const lengthened = after.filter((r) => r.dataset_id === data.ids.ds);
    await sql`DELETE FROM text_ranked_ahead_runs WHERE dataset_id = ${data.ids.ds}`.execute(store.db);
    expect(await new PostgresRankAhead(store.db, long).rank(data.ids.ds)).toBe(true);
    expect((await stored()).filter((r) => r.dataset_id === data.ids.ds)).toEqual(lengthened);
    expect(await runs()).toEqual(runsBefore);
    // Nothing short left: not again.
    expect(await rankAhead.lengthen(data.ids.ds, version)).toBe(false);

    // The SDK's pages of the lengthened words equal the plain path's; an unknown word, an empty query, the other dataset.
    for (const q of ["common", "middle", "rare", "nowhereword", ""]) await samePages(rankAhead, q);
    expect(await samePages(rankAhead, "common")).toBeGreaterThan(2_000);
    await samePages(rankAhead, "common", data.ids.other);
  }, 300_000);

  it("lengthens in the background at an unchanged version, then searches read the longer lists; records deleted after", async () => {
    // Ranked short again at a new version (a record deleted), then a replica with the longer length started.
    const first = (
      await store.db.selectFrom("records").select("id").where("dataset_id", "=", data.ids.ds).orderBy("seq").limit(1).execute()
    )[0]!;
    await store.db.deleteFrom("records").where("id", "=", first.id).execute();
    expect(await new PostgresRankAhead(store.db, { minRecords: 5, listLength: 64 }).rank(data.ids.ds)).toBe(true);
    const shortBefore = (await stored()).filter((r) => r.dataset_id === data.ids.ds);
    expect(shortBefore.find((r) => r.word === "'common'")!.seqs).toHaveLength(64);

    const rankAhead = new PostgresRankAhead(store.db, { minRecords: 5, listLength: 1_000, firstRead: 16, settleMs: 50, tickMs: 20 });
    rankAhead.start();
    const deadline = Date.now() + 60_000;
    let listed = 64;
    while (Date.now() < deadline && listed !== 1_000) {
      await new Promise((r) => setTimeout(r, 50));
      listed = (await stored()).find((r) => r.dataset_id === data.ids.ds && r.word === "'common'")!.seqs.length;
    }
    await rankAhead.stop();
    expect(listed).toBe(1_000);
    const after = (await stored()).filter((r) => r.dataset_id === data.ids.ds);
    expect(after.map((r) => r.version)).toEqual(shortBefore.map((r) => r.version));
    expect(
      Number(
        (await sql<{ n: string }>`SELECT count(*) AS n FROM text_ranked_ahead_runs WHERE finished_at IS NULL`.execute(store.db)).rows[0]!.n,
      ),
    ).toBe(0);
    expect(await samePages(rankAhead, "common")).toBeGreaterThan(2_000);
    await samePages(rankAhead, "middle");
  }, 300_000);
});
