import type { Kysely } from "kysely";
import { rawSqliteOf } from "../db/database.js";
import type { DB } from "../db/schema.js";
import { answeredStatuses } from "./answered-filter.js";
import { filterCountLimit, type SearchFilter, type SearchHit, type SearchQuery, type SearchSort } from "./search-port.js";
import { answeredSetsOf } from "./sqlite-answered.js";
import type { SqliteMetadata } from "./sqlite-metadata.js";
import type { SuggestionKeys } from "./sqlite-sort-keys.js";
import { Builder, orderTerms, SqliteQueries } from "./sqlite-sql.js";

/** Candidates tested per SQL statement: first, and at most (the batch grows 4x while the page is not full). */
const FIRST_BATCH = 64;
const MAX_BATCH = 8_192;
/**
 * Answered records a search starts from at most (a filter that only answered records pass); beyond, the plain
 * path walks the dataset's records (a team's many answers are dense among the first records).
 */
export const ANSWERED_START_MAX = 50_000;

/** A page, and the total when the candidates gave it. */
export interface CandidatePage {
  hits: SearchHit[];
  total?: { total: number; totalIsLowerBound?: true };
}

/** A filter that only records with a response pass (of the caller on `/me`, of anyone on the admin search). */
export const needsResponse = (f: SearchFilter): boolean =>
  f.scope.entity === "response_value" || (f.type === "terms" && f.scope.entity === "response_status" && !f.values.includes("pending"));

/**
 * Searches without text or vector that start from a list of candidate records in the page's order instead of the
 * dataset's records (issues 25 and 31: the annotation page's filters and sorts at 1M records), the query's filters
 * tested on them in SQL, batch by batch, until the page is full:
 * - a filter only answered records pass (a response value, submitted, draft, discarded): the answered records
 *   (sqlite-answered.ts, the caller's or anyone's), in seq order or sorted in SQL. At 1M records the plain path
 *   probed every record for a response: the caller's submitted + label 7.4 s (none: the whole dataset), any user's
 *   response value 3.2 s;
 * - a sort by a metadata property or a suggestion's score, value, agent or type: the records that have a value in
 *   the sort's order (sqlite-metadata.ts, sqlite-sort-keys.ts), then those without one in seq order (SQL, the key
 *   IS NULL): 5.4-13.8 s at 1M, the plain path reading and sorting every record of the dataset per call;
 * - a sort by a response value or status: the answered records with a value, sorted in SQL, then the others.
 * Pages equal the plain path's (sqlite-candidates.test.ts). Null: the plain path answers.
 */
export class SqliteCandidates extends SqliteQueries {
  constructor(
    db: Kysely<DB>,
    private readonly metadata: SqliteMetadata,
    private readonly suggestions: SuggestionKeys,
  ) {
    super(db);
  }

  /** Pages given from answered records, and in a sort's order (tests, diagnostics). */
  readonly pages = { answered: 0, sorted: 0 };

  async search(query: SearchQuery): Promise<CandidatePage | null> {
    const raw = rawSqliteOf(this.db);
    if (!raw || query.text || query.vector || query.sort.length > 1) return null;
    const sort = query.sort[0] ?? null;
    const answeredOnly = query.filters.some(needsResponse);
    const responseSort = sort !== null && (sort.scope.entity === "response_value" || sort.scope.entity === "response_status");
    let answered: Uint32Array | null = null;
    if (answeredOnly || responseSort) {
      const statuses = answeredOnly ? answeredStatuses(query.filters) : null;
      answered = await this.db.connection().execute(async () => answeredSetsOf(raw).seqsOf(query.datasetId, query.userId, statuses));
      if (answered.length > ANSWERED_START_MAX) return null;
    }
    const bound = filterCountLimit(query, null);
    if (answeredOnly) {
      this.pages.answered++;
      if (sort === null) {
        const walk = await this.walk(query, answered!, bound ?? Number.POSITIVE_INFINITY);
        return { hits: walk.page, total: totalOf(walk.passed, bound) };
      }
      // Sorted: the few answered records ordered in SQL, the filters on each.
      const b = new Builder(query.userId);
      const seqs = b.p(JSON.stringify(Array.from(answered!)));
      const where = [`r.dataset_id = ${b.p(query.datasetId)}`, ...query.filters.map((f) => b.filter(f))];
      const order = orderTerms(b, query.sort);
      const rows = await this.all<{ id: string }>(
        `SELECT r.id AS id FROM json_each(${seqs}) AS c CROSS JOIN records r ON r.seq = c.value WHERE ${where.join(" AND ")} ORDER BY ${order.join(", ")}, r.seq ASC LIMIT ${b.p(query.limit)} OFFSET ${b.p(query.offset)}`,
        b.params,
      );
      const walk = await this.walk({ ...query, offset: 0, limit: 0 }, answered!, bound ?? Number.POSITIVE_INFINITY);
      return { hits: rows.map((r) => ({ recordId: r.id, score: null })), total: totalOf(walk.passed, bound) };
    }
    if (sort === null) return null;
    const run = answered ? await this.answeredRun(query, answered, sort) : await this.runOf(query.datasetId, sort);
    if (!run) return null;
    this.pages.sorted++;
    const walk = await this.walk(query, run, 0);
    if (walk.page.length === query.limit || walk.exhausted === false) return { hits: walk.page };
    // Past the records with a value: those without one, in seq order.
    const b = new Builder(query.userId);
    const where = [
      `r.dataset_id = ${b.p(query.datasetId)}`,
      ...query.filters.map((f) => b.filter(f)),
      `(${b.sortExpr(sort.scope)}) IS NULL`,
    ];
    const rows = await this.all<{ id: string }>(
      `SELECT r.id AS id FROM records r WHERE ${where.join(" AND ")} ORDER BY r.seq LIMIT ${b.p(query.limit - walk.page.length)} OFFSET ${b.p(Math.max(0, query.offset - walk.passed))}`,
      b.params,
    );
    return { hits: [...walk.page, ...rows.map((r) => ({ recordId: r.id, score: null }))] };
  }

  /** The records with a value of the sort's key, in its order (from memory), or null when it is not kept. */
  async runOf(datasetId: string, sort: SearchSort): Promise<Uint32Array | null> {
    const s = sort.scope;
    const run =
      s.entity === "metadata"
        ? await this.metadata.sortedRun(datasetId, s.name)
        : s.entity === "suggestion"
          ? await this.suggestions.run(datasetId, s.questionId, s.property)
          : null;
    return run && run[sort.order];
  }

  /** The answered records with a value of a response sort key, in its order (SQL over the few). */
  private async answeredRun(query: SearchQuery, answered: Uint32Array, sort: SearchSort): Promise<Uint32Array> {
    const b = new Builder(query.userId);
    // Placeholders are numbered in text order: the key (select list) first.
    const key = b.sortExpr(sort.scope);
    const seqs = b.p(JSON.stringify(Array.from(answered)));
    const dataset = b.p(query.datasetId);
    const rows = await this.all<{ seq: number }>(
      `SELECT seq FROM (SELECT r.seq AS seq, ${key} AS k FROM json_each(${seqs}) AS c CROSS JOIN records r ON r.seq = c.value WHERE r.dataset_id = ${dataset}) WHERE k IS NOT NULL ORDER BY k ${sort.order === "desc" ? "DESC" : "ASC"}, seq ASC`,
      b.params,
    );
    return Uint32Array.from(rows, (r) => r.seq);
  }

  /**
   * The candidates (seqs, in the page's order) tested against the query's filters, batch by batch: the page from
   * `offset`, and on until `countTo + 1` pass (the count's bound) or the candidates run out (`exhausted`).
   */
  private async walk(
    query: SearchQuery,
    seqs: Uint32Array,
    countTo: number,
  ): Promise<{ page: SearchHit[]; passed: number; exhausted: boolean }> {
    const need = query.offset + query.limit;
    const page: SearchHit[] = [];
    let passed = 0;
    let pos = 0;
    let batch = FIRST_BATCH;
    const b = new Builder(query.userId);
    const list = b.p(null);
    const where = [`r.dataset_id = ${b.p(query.datasetId)}`, ...query.filters.map((f) => b.filter(f))];
    const sql = `SELECT r.id AS id FROM json_each(${list}) AS c CROSS JOIN records r ON r.seq = c.value WHERE ${where.join(" AND ")} ORDER BY c.key`;
    while (pos < seqs.length && (passed < need || passed <= countTo)) {
      const chunk = seqs.subarray(pos, pos + batch);
      pos += chunk.length;
      batch = Math.min(batch * 4, MAX_BATCH);
      const params = [...b.params];
      params[0] = JSON.stringify(Array.from(chunk));
      for (const row of await this.all<{ id: string }>(sql, params)) {
        if (passed >= query.offset && page.length < query.limit) page.push({ recordId: row.id, score: null });
        passed++;
      }
    }
    return { page, passed, exhausted: pos >= seqs.length };
  }
}

/** A walk's count as the total: beyond the bound, the bound with `totalIsLowerBound`. */
function totalOf(passed: number, bound: number | null): { total: number; totalIsLowerBound?: true } {
  return bound !== null && passed > bound ? { total: bound, totalIsLowerBound: true } : { total: passed };
}
