import type { SearchHit, SearchQuery, SearchSort } from "./search-port.js";
import { Builder, SqliteQueries } from "./sqlite-sql.js";

/** Matching records tested against the filters per SQL statement: first, and at most (the batch grows 4x while the page is not full). */
const FIRST_BATCH = 32;
const MAX_BATCH = 8_192;
/**
 * Records of the dataset walked at most in `updated_at` order (its index, ~1 µs each) for one page: beyond it the matches
 * are sorted in SQL instead (a rare word, or filters that pass few of the matches).
 */
const WALK_MAX = 100_000;
/** Records read per step of the `updated_at` walk (doubled each step). */
const WALK_FIRST = 1_024;

/** The sorts a text search walks in their order: from memory (metadata, suggestions), by seq (inserted_at), by the `updated_at` index. */
export type SortOrder = { run: Uint32Array } | { bySeq: "asc" | "desc" } | { updated: "asc" | "desc" };

/** The order of a sort, or null when the matches are sorted in SQL (another sort, several). `runOf`: the in-memory run of a metadata or suggestion sort. */
export async function sortOrderOf(
  sort: readonly SearchSort[],
  runOf: (sort: SearchSort) => Promise<Uint32Array | null>,
): Promise<SortOrder | null> {
  const s = sort.length === 1 ? sort[0]! : null;
  if (!s) return null;
  if (s.scope.entity === "record" && s.scope.property === "inserted_at") return { bySeq: s.order };
  if (s.scope.entity === "record" && s.scope.property === "updated_at") return { updated: s.order };
  if (s.scope.entity !== "metadata" && s.scope.entity !== "suggestion") return null;
  const run = await runOf(s);
  return run && { run };
}

/**
 * The page of a text search sorted by another value (issues 25 and 31): the records that match the text (all of them,
 * sorted seqs, no scoring) taken in the sort's order, those with a value first (the in-memory run of a metadata column or
 * a suggestion key, seq order for inserted_at, the `updated_at` index) then those without one in seq order, as the plain
 * path orders them (`(key) IS NULL`, key, seq), the filters tested in SQL batch by batch until the page is full, and
 * only the page's records scored. At 1M records the plain path scored every match with bm25 and sorted them all in
 * SQL: a word in 0.5-10% of the records sorted by `length` 165 ms p95 (137 ms of CPU on the request thread), an admin's
 * sorted by updated time 302 (264). Null: the plain path answers (the `updated_at` walk would read more than WALK_MAX
 * records).
 */
export class SqliteTextSorted extends SqliteQueries {
  /** Pages given, and `updated_at` walks given up (tests, diagnostics). */
  pages = 0;
  walksGivenUp = 0;

  /** `walkMax`: WALK_MAX (tests lower it to give the plain path the walk). */
  constructor(
    db: ConstructorParameters<typeof SqliteQueries>[0],
    private readonly walkMax = WALK_MAX,
  ) {
    super(db);
  }

  async page(
    query: SearchQuery,
    /** The text's matching records (sorted seqs) and the dataset's seq range. */
    matches: Uint32Array,
    lo: number,
    hi: number,
    order: SortOrder,
    /** The best score (bm25, lower is better) of each of these records' matching rows, as the other paths score them. */
    scoresOf: (seqs: Uint32Array) => Promise<Map<number, number>>,
  ): Promise<SearchHit[] | null> {
    const need = query.offset + query.limit;
    const matched = new Uint8Array(((hi - lo) >> 3) + 1);
    for (const seq of matches) if (seq >= lo && seq <= hi) matched[(seq - lo) >> 3]! |= 1 << ((seq - lo) & 7);
    const isMatch = (seq: number) => seq >= lo && seq <= hi && (matched[(seq - lo) >> 3]! & (1 << ((seq - lo) & 7))) !== 0;
    const expected = need * Math.ceil((hi - lo + 1) / Math.max(1, matches.length));
    const next =
      "run" in order
        ? runWalk(order.run, matches, isMatch)
        : "bySeq" in order
          ? fromList(bySeq(matches, order.bySeq))
          : this.updatedWalk(query.datasetId, order.updated, isMatch, expected);
    if (!next) {
      this.walksGivenUp++;
      return null;
    }
    // The filters on the matching records in the sort's order, batch by batch, until the page is full.
    const b = new Builder(query.userId);
    b.p(null);
    const where = [`r.dataset_id = ${b.p(query.datasetId)}`, ...query.filters.map((f) => b.filter(f))];
    const sql = `SELECT r.seq AS seq, r.id AS id FROM json_each(?) AS c CROSS JOIN records r ON r.seq = c.value WHERE ${where.join(" AND ")} ORDER BY c.key`;
    const page: { seq: number; id: string }[] = [];
    let passed = 0;
    for (let batch = FIRST_BATCH; passed < need; batch = Math.min(batch * 4, MAX_BATCH)) {
      const chunk = await next(batch);
      if (chunk === null) {
        this.walksGivenUp++;
        return null;
      }
      if (chunk.length === 0) break;
      const params = [...b.params];
      params[0] = JSON.stringify(Array.from(chunk));
      for (const row of await this.all<{ seq: number; id: string }>(sql, params)) {
        if (passed >= query.offset && page.length < query.limit) page.push(row);
        passed++;
      }
    }
    this.pages++;
    if (page.length === 0) return [];
    const scores = await scoresOf(Uint32Array.from(page, (r) => r.seq).sort());
    return page.map((r) => ({ recordId: r.id, score: -scores.get(r.seq)! }));
  }

  /**
   * The matching records in `updated_at` order (ties by seq), read from the `updated_at` index in steps, or null once it
   * read more than WALK_MAX records (or `expected`, the records it would read for the page if every match passed, is
   * beyond it): the plain path sorts the matches then.
   */
  private updatedWalk(
    datasetId: string,
    order: "asc" | "desc",
    isMatch: (seq: number) => boolean,
    expected: number,
  ): ((n: number) => Promise<Uint32Array | null>) | null {
    if (expected > this.walkMax) return null;
    const direction = order === "desc" ? "DESC" : "ASC";
    const sql = `SELECT seq FROM records WHERE dataset_id = ? ORDER BY updated_at ${direction}, seq ASC LIMIT ? OFFSET ?`;
    let read = 0;
    let step = WALK_FIRST;
    let done = false;
    const buffer: number[] = [];
    return async (n) => {
      while (buffer.length < n && !done) {
        if (read >= this.walkMax) return null;
        const seqs = (await this.all<{ seq: number }>(sql, [datasetId, step, read])).map((r) => r.seq);
        read += seqs.length;
        done = seqs.length < step;
        step = Math.min(step * 2, this.walkMax);
        for (const seq of seqs) if (isMatch(seq)) buffer.push(seq);
      }
      return Uint32Array.from(buffer.splice(0, n));
    };
  }
}

/**
 * The matches in a run's order (records with a value), then the matches without a value (not in the run) in seq order,
 * `n` at a time: the run is read only as far as the page needs (a word in 10% of 1M records: ~100 of the run's 1M
 * records for a page of 10, where listing every match in the run's order cost ~12 ms of CPU per call).
 */
function runWalk(run: Uint32Array, matches: Uint32Array, isMatch: (seq: number) => boolean): (n: number) => Promise<Uint32Array> {
  let i = 0;
  const listed: number[] = [];
  let nulls: Uint32Array | null = null;
  let j = 0;
  return (n) => {
    const out: number[] = [];
    for (; out.length < n && i < run.length; i++)
      if (isMatch(run[i]!)) {
        out.push(run[i]!);
        listed.push(run[i]!);
      }
    if (out.length < n) {
      // The run read to its end: the matches it did not list, in seq order.
      nulls ??= withoutListed(matches, Uint32Array.from(listed).sort());
      while (out.length < n && j < nulls.length) out.push(nulls[j++]!);
    }
    return Promise.resolve(Uint32Array.from(out));
  };
}

/** The sorted `seqs` that are not in the sorted `listed`. */
function withoutListed(seqs: Uint32Array, listed: Uint32Array): Uint32Array {
  const out = new Uint32Array(seqs.length);
  let n = 0;
  let k = 0;
  for (const seq of seqs) {
    while (k < listed.length && listed[k]! < seq) k++;
    if (k >= listed.length || listed[k] !== seq) out[n++] = seq;
  }
  return out.subarray(0, n);
}

/** The matches in seq order (a sort by inserted_at: `r.seq`), ascending or descending. */
function bySeq(matches: Uint32Array, order: "asc" | "desc"): Uint32Array {
  return order === "asc" ? matches : matches.slice().reverse();
}

/** A list given `n` at a time. */
function fromList(list: Uint32Array): (n: number) => Promise<Uint32Array> {
  let at = 0;
  return (n) => {
    const chunk = list.subarray(at, at + n);
    at += chunk.length;
    return Promise.resolve(chunk);
  };
}
