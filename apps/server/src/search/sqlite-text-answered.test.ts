import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openEmbeddedStore, rawSqliteOf, type Store } from "../db/database.js";
import { addResponses } from "../testing/responses.js";
import { addTextRecords } from "../testing/text-records.js";
import type { SearchQuery } from "./search-port.js";
import { seedSearchData } from "./search-port.suite.js";
import { SqliteText } from "./sqlite-text.js";
import { ANSWERED_HELPERS, ANSWERED_SEEK_ROWS, type AnsweredRead, answeredRanges, answeredRead } from "./sqlite-text-answered.js";
import { textIndexFor } from "./text-index.js";

/**
 * The Submitted (Draft, Discarded) views' text search of an annotator with more answered records than the old path took
 * (2,000), spread through the dataset (every other record: a team sharing one queue): the answered records' rows read
 * with tessera_seq_in's bitmap on a text match thread, or here, or with an IN list, give the plain path's pages and totals.
 */
describe("text search of many answered records", () => {
  let dir: string;
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  const ids: string[] = [];
  const RECORDS = 6000;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "tessera-answered-"));
    store = await openEmbeddedStore(dir);
    data = await seedSearchData(store);
    // The dataset's records alone in their seq range (another dataset's inside it takes the other paths).
    await store.db.deleteFrom("records").where("dataset_id", "=", data.ids.other).execute();
    ids.push(
      ...(await addTextRecords(
        store.db,
        data.ids.ds,
        Array.from({ length: RECORDS }, (_, i) => ({
          text: [
            i % 5 !== 0 ? "common" : "filler",
            i % 5 === 1 ? "middle" : "other",
            i % 97 === 3 ? "rare" : "",
            "common ".repeat(i % 4),
            "pad ".repeat(i % 6),
          ].join(" "),
          context: i % 3 === 0 ? "middle common" : "context",
          metadata: { genre: i % 3 === 0 ? "blog" : "news" },
        })),
      )),
    );
    await textIndexFor(store.db)?.catchUp();
    // u1: 3,000 submitted records, every other one, and a few discarded; u2: every seventh, as drafts.
    await addResponses(
      store.db,
      ids.filter((_, i) => i % 2 === 0),
      data.ids.u1,
    );
    await addResponses(
      store.db,
      ids.filter((_, i) => i % 2 === 1 && i % 11 === 0),
      data.ids.u1,
      "discarded",
    );
    await addResponses(
      store.db,
      ids.filter((_, i) => i % 7 === 0),
      data.ids.u2,
      "draft",
    );
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const view = (q: string, statuses: string[], userId: string | null, offset = 0, extra: SearchQuery["filters"] = []): SearchQuery => ({
    datasetId: data.ids.ds,
    userId,
    text: { q, field: null },
    vector: null,
    sort: [],
    offset,
    limit: 10,
    filters: [{ type: "terms", scope: { entity: "response_status" }, values: statuses }, ...extra],
  });

  it("answers as the plain path, with more than 2,000 answered records spread through the dataset", async () => {
    // Its read split between the two threads (above 1,024 candidates), or on one thread.
    const threaded = new SqliteText(store.db, { rankWindow: 50 });
    const oneThread = new SqliteText(store.db, { rankWindow: 50, answeredSplit: Infinity });
    const here = new SqliteText(store.db, { rankWindow: 50, offThread: false });
    const inList = new SqliteText(store.db, { rankWindow: 50, answeredMembers: false });
    const plain = new SqliteText(store.db, { rankWindow: 50, answered: false });
    let compared = 0;
    for (const q of ["common", "middle", "rare", "common middle", "comm*", "nothingsuch", "-"])
      for (const [statuses, userId] of [
        [["submitted"], data.ids.u1],
        [["submitted", "discarded"], data.ids.u1],
        [["draft"], data.ids.u2],
        [["draft"], data.ids.u1],
      ] as const)
        for (const extra of [
          [],
          [{ type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] }],
        ] as SearchQuery["filters"][])
          for (const offset of [0, 30]) {
            const query = view(q, [...statuses], userId, offset, extra);
            const expected = await plain.textSearch(query, query.text!);
            for (const adapter of [threaded, oneThread, here, inList])
              expect(await adapter.textSearch(query, query.text!)).toEqual(expected);
            if (expected.total > 40) compared++;
          }
    expect(compared).toBeGreaterThan(20);
    // The answered path answered (beyond 2,000 answered records), its reads on the threads for the threaded adapter only.
    expect(threaded.answeredSearches).toBeGreaterThan(50);
    expect(threaded.answeredOffThread).toBeGreaterThan(20);
    expect(oneThread.answeredOffThread).toBe(threaded.answeredOffThread);
    expect(threaded.answeredSplits).toBeGreaterThan(10);
    expect(oneThread.answeredSplits).toBe(0);
    expect(here.answeredOffThread).toBe(0);
    expect(inList.answeredSearches).toBe(threaded.answeredSearches);
  }, 120_000);

  it("counts a word's rows for its score on the thread that reads them, once per index version", async () => {
    const text = new SqliteText(store.db);
    const query = view("middle", ["submitted"], data.ids.u1);
    const first = await text.textSearch(query, query.text!);
    expect(first.total).toBeGreaterThan(100);
    expect(text.answeredOffThread).toBe(1);
    expect(text.phraseCounts).toBe(1); // counted there, kept here
    expect(await text.textSearch(query, query.text!)).toEqual(first);
    expect(text.phraseCounts).toBe(1);
    expect(text.answeredOffThread).toBe(2);
  });

  it("reads runs of candidates apart as ranges of their own only when the query's rows between them cost more than a range", () => {
    const raw = rawSqliteOf(store.db)!;
    const gaps: number[] = [];
    const helpers = {
      ...ANSWERED_HELPERS,
      ranges: (seqs: ArrayLike<number>, gap: number, max: number) => (gaps.push(gap), answeredRanges(seqs, gap, max)),
    };
    const lo = raw.prepare("SELECT min(seq) FROM records WHERE dataset_id = ?").pluck().get(data.ids.ds) as number;
    const seqs = Uint32Array.from({ length: 100 }, (_, i) => lo + i * 50);
    const read = (expression: string, known: Record<string, number>, seekRows = ANSWERED_SEEK_ROWS): AnsweredRead => ({
      expression,
      field: null,
      seqs,
      records: RECORDS,
      scoring: "word",
      known,
      members: true,
      gap: 256,
      seekRows,
      maxRanges: 1024,
    });
    const all = (expression: string, known: Record<string, number>, seekRows?: number) => {
      const r = answeredRead((sql) => raw.prepare(sql), read(expression, known, seekRows), helpers);
      return Array.from(r.fr, (fr, i) => [fr, r.bm[i]]);
    };
    // "common" is in ~80% of the records' rows: a gap of ~SEEK_ROWS / 0.9 records; "rare" in 1%: one range for all.
    const common = all('"common"', {});
    expect(gaps.at(-1)).toBeLessThan(ANSWERED_SEEK_ROWS);
    const rare = all('"rare"', {});
    expect(gaps.at(-1)).toBeGreaterThan(5000);
    // The same rows whatever the ranges.
    expect(all('"common"', {}, 0)).toEqual(common);
    expect(gaps.at(-1)).toBe(256);
    expect(all('"rare"', {}, 0)).toEqual(rare);
    expect(common.length).toBeGreaterThan(50);
    expect(rare.length).toBeGreaterThan(0);
  });
});
