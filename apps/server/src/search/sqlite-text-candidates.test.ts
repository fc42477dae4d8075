import { randomUUID } from "node:crypto";
import { rmSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rawSqliteOf, type Store } from "../db/database.js";
import { seededRandom } from "../testing/random.js";
import { WORD_QUERIES, wordDataset } from "../testing/word-records.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import type { seedSearchData } from "./search-port.suite.js";
import { SqliteText } from "./sqlite-text.js";
import { textCandidatesOf } from "./sqlite-text-candidates.js";
import { textIndexFor } from "./text-index.js";

/**
 * Text searches one of whose filters passes few records (sqlite-text-candidates.ts: the completed records, the caller's or
 * anyone's answered records of a response status or value filter) against the plain path (`answered: false`: the text's
 * matches tested against the filters) on 3,000 records between two other datasets' records with the same words: common,
 * middle and rare words, a phrase, a short and a long prefix, one field and a word in no record; responses of two users
 * (submitted with label values, drafts, discarded), completed records with and without responses; pages at several
 * offsets, exact totals and totals bounded as the route bounds them.
 */
describe("text search from the records a filter passes", () => {
  let dir: string;
  let store: Store;
  let data: Awaited<ReturnType<typeof seedSearchData>>;
  let ids: string[];
  let others: string[];
  const random = seededRandom(2525);
  const RECORDS = 3_000;

  const respond = async (
    recordIds: string[],
    userId: string,
    status: "submitted" | "draft" | "discarded",
    label: (i: number) => string | null,
  ) => {
    if (recordIds.length === 0) return;
    const ts = "2024-01-01T00:00:00";
    await store.db
      .insertInto("responses")
      .values(
        recordIds.map((recordId, i) => {
          const value = label(i);
          return {
            id: randomUUID(),
            record_id: recordId,
            user_id: userId,
            status,
            values: value === null ? "{}" : JSON.stringify({ label: { value } }),
            inserted_at: ts,
            updated_at: ts,
          };
        }),
      )
      .execute();
  };
  beforeAll(async () => {
    // Another dataset's records before and after the dataset's own (outside its seq range), answered and completed alike.
    ({ dir, store, data, ids, others } = await wordDataset("tessera-text-candidates-", random, RECORDS, false));
    const labels = ["pos", "neg", "neu"];
    const some = (xs: string[], p: number) => xs.filter(() => random() < p);
    for (const records of [ids, others]) {
      await respond(some(records, 0.15), data.ids.u1, "submitted", () => (random() < 0.1 ? null : labels[Math.floor(random() * 3)]!));
      await respond(some(records, 0.05), data.ids.u2, "submitted", () => labels[Math.floor(random() * 3)]!);
    }
    // Discarded answers of u1 and drafts of u2 on records they did not answer yet (a user answers a record once).
    for (const [userId, kind, value] of [
      [data.ids.u1, "discarded", null],
      [data.ids.u2, "draft", "pos"],
    ] as const) {
      const rows = await store.db.selectFrom("responses").select("record_id").where("user_id", "=", userId).execute();
      const answered = new Set(rows.map((r) => r.record_id));
      await respond(
        some(
          ids.filter((id) => !answered.has(id)),
          0.04,
        ),
        userId,
        kind,
        () => value,
      );
    }
    await textIndexFor(store.db)?.catchUp();
  }, 120_000);
  afterAll(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const completed: SearchFilter = { type: "terms", scope: { entity: "record", property: "status" }, values: ["completed"] };
  const pending: SearchFilter = { type: "terms", scope: { entity: "response_status" }, values: ["pending"] };
  const status = (...values: string[]): SearchFilter => ({ type: "terms", scope: { entity: "response_status" }, values });
  const label = (...values: string[]): SearchFilter => ({
    type: "terms",
    scope: { entity: "response_value", questionName: "label" },
    values,
  });
  const blog: SearchFilter = { type: "terms", scope: { entity: "metadata", name: "genre" }, values: ["blog"] };
  const shapes = (): SearchFilter[][] => [
    [completed],
    [completed, pending],
    [completed, blog],
    [status("submitted")],
    [status("submitted"), label("pos")],
    [label("neg")],
    [label("pos", "neu"), blog],
    [status("discarded", "draft")],
    [status("submitted"), completed],
  ];
  const queries = function* (): Generator<SearchQuery> {
    for (const text of WORD_QUERIES)
      for (const filters of shapes())
        for (const userId of [data.ids.u1, data.ids.u2, null])
          for (const offset of [0, 20, 150])
            yield { datasetId: data.ids.ds, userId, text, vector: null, filters, sort: [], offset, limit: 10 };
  };

  it("gives the plain path's pages and totals, exact and bounded", async () => {
    const fast = new SqliteText(store.db, { rankWindow: 50 });
    const here = new SqliteText(store.db, { rankWindow: 50, offThread: false });
    const plain = new SqliteText(store.db, { rankWindow: 50, answered: false });
    let long = 0;
    for (const q of queries()) {
      const expected = await plain.textSearch(q, q.text!);
      expect(await fast.textSearch(q, q.text!), JSON.stringify(q)).toEqual(expected);
      expect(await here.textSearch(q, q.text!), JSON.stringify(q)).toEqual(expected);
      // Bounded as the route bounds it: the text's bound, the filter bound for filters other than the queue's.
      const bounded = { ...q, totalBound: 40, filterBound: 25 };
      const plainBounded = await plain.textSearch(bounded, q.text!);
      expect(await fast.textSearch(bounded, q.text!), JSON.stringify(bounded)).toEqual(plainBounded);
      if (expected.total > 40) long++;
    }
    // Pages beyond the first and bounded totals were among them; every one answered from the candidates.
    expect(long).toBeGreaterThan(50);
    expect(fast.answeredSearches).toBeGreaterThan(1_000);
    expect(plain.answeredSearches).toBe(0);
  }, 600_000);

  it("lists the candidates of each shape, and none where no filter passes few records", () => {
    const raw = rawSqliteOf(store.db)!;
    const q = (filters: SearchFilter[], userId: string | null): SearchQuery => ({
      datasetId: data.ids.ds,
      userId,
      text: { q: "common", field: null },
      vector: null,
      filters,
      sort: [],
      offset: 0,
      limit: 10,
    });
    const count = (sql: string, ...params: unknown[]) =>
      raw
        .prepare(sql)
        .pluck()
        .get(...params) as number;
    const done = count("SELECT count(*) FROM records WHERE dataset_id = ? AND status = 'completed'", data.ids.ds);
    const byStatus = textCandidatesOf(raw, q([completed, pending], data.ids.u1))!;
    expect(byStatus.seqs.length).toBe(done);
    expect(byStatus.rest).toEqual([pending]);
    const anyone = count(
      "SELECT count(DISTINCT s.record_id) FROM responses s JOIN records r ON r.id = s.record_id WHERE r.dataset_id = ?",
      data.ids.ds,
    );
    const byValue = textCandidatesOf(raw, q([label("neg")], null))!;
    expect(byValue.seqs.length).toBe(anyone);
    expect(byValue.rest).toEqual([label("neg")]);
    const submitted = count(
      "SELECT count(*) FROM responses s JOIN records r ON r.id = s.record_id WHERE r.dataset_id = ? AND s.user_id = ? AND s.status = 'submitted'",
      data.ids.ds,
      data.ids.u2,
    );
    const mine = textCandidatesOf(raw, q([status("submitted"), label("pos")], data.ids.u2))!;
    expect(mine.seqs.length).toBe(submitted);
    expect(mine.rest).toEqual([label("pos")]);
    // The queue, metadata alone, or more candidates than the bound: the text's matches are the list.
    expect(textCandidatesOf(raw, q([pending], data.ids.u1))).toBeNull();
    expect(textCandidatesOf(raw, q([blog], null))).toBeNull();
    expect(textCandidatesOf(raw, q([completed], null), done - 1)).toBeNull();
    expect(textCandidatesOf(raw, q([label("neg")], null), anyone - 1)).toBeNull();
    // Anyone's answered records are not read beyond a number of responses in the instance; the caller's are.
    const responses = count("SELECT count(*) FROM responses");
    expect(textCandidatesOf(raw, q([label("neg")], null), anyone, responses)).not.toBeNull();
    expect(textCandidatesOf(raw, q([label("neg")], null), anyone, responses - 1)).toBeNull();
    expect(textCandidatesOf(raw, q([status("submitted")], null), anyone, responses - 1)).toBeNull();
    expect(textCandidatesOf(raw, q([status("submitted")], data.ids.u2), anyone, responses - 1)?.seqs.length).toBe(submitted);
  });
});
