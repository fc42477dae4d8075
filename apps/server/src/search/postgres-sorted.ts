import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, onSearchRows, queryRows, textMatchSql, textWords } from "./postgres-sql.js";
import type { SearchQuery, SearchSort } from "./search-port.js";
import { literal, metadataSortKey } from "./postgres-metadata-sort.js";
import { firstKeyTiesPage } from "./postgres-score-ties.js";

/**
 * Records of the sort's order the walk reads at most before the matches are gathered instead (text) or the
 * plain query decides (without text). At 1M bench records a record costs ~2-10 µs (its filters, the text's
 * tsvector for those passing them), so the walk stays within ~20 ms; a page of 10 is found within it when
 * at least 1 in 200 of the records pass (a word in 0.5% of them with the queue's filter).
 */
export const WALK_RECORDS = 2_000;
/**
 * Matches of a text query gathered at most (in the order the GIN index gives them) for a page the walk did not
 * fill: these few records are sorted by the plain sort key. A text matching more, with filters that pass too
 * few of them for the walk, takes the plain query.
 */
export const GATHER_RECORDS = 20_000;

/** The records' columns the filters read, as the walk's subquery `r` gives them. */
const COLUMNS = "r.id, r.seq, r.dataset_id, r.external_id, r.status, r.metadata, r.inserted_at, r.updated_at";

/**
 * Where the walk reads a sort's records in its order from an index (migration 0036), as a subquery with the
 * records' columns the filters read: `from` (ordered by `order`, over its output; empty: `from` streams its rows in
 * the sort's order, which the planner does not know), the records whose key is not null. `hasKey`: whether a record `r` has one, when some may not (they follow, by seq: the null run). Null: no
 * index serves the sort. `metadataIndexed`: the index of the sort's metadata property is valid (postgres-metadata-sort.ts);
 * `walkRecords`: the walk's budget (sortedPage).
 */
export function walkSource(
  b: Builder,
  query: SearchQuery,
  sort: SearchSort,
  metadataIndexed: boolean,
  walkRecords = WALK_RECORDS,
): { from: string; order: string; hasKey: ((b: Builder) => string) | null } | null {
  const dir = sort.order === "desc" ? "DESC" : "ASC";
  const s = sort.scope;
  if (s.entity === "record" && (s.property === "inserted_at" || s.property === "updated_at")) {
    // records_dataset_seq_idx, or records_dataset_updated_idx (0036) with ties by seq (an incremental sort).
    const order = s.property === "inserted_at" ? `r.seq ${dir}` : `r.updated_at ${dir}, r.seq ASC`;
    return {
      from: `SELECT ${COLUMNS} FROM records r WHERE r.dataset_id = ${b.p(query.datasetId)} ORDER BY ${order}`,
      order: order.replace(/r\./g, ""),
      hasKey: null,
    };
  }
  if (s.entity === "suggestion" && s.property === "score") {
    // suggestions_question_score_top_idx (0036): the records with a score, by it.
    return {
      from: `SELECT ${COLUMNS}, tessera_json_top(g.score) AS key FROM suggestions g JOIN records r ON r.id = g.record_id
        WHERE g.question_id = ${b.p(s.questionId)} AND tessera_json_top(g.score) IS NOT NULL AND r.dataset_id = ${b.p(query.datasetId)}
        ORDER BY tessera_json_top(g.score) ${dir}, r.seq ASC`,
      order: `key ${dir}, seq ASC`,
      hasKey: (n) =>
        `EXISTS (SELECT 1 FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${n.p(s.questionId)} AND tessera_json_top(g.score) IS NOT NULL)`,
    };
  }
  if (s.entity === "metadata" && metadataIndexed) {
    // The property's partial index (key, seq) (postgres-metadata-sort.ts), key and dataset inlined so that the planner
    // matches its expression and proves its predicate. Ascending: the index in its order. Descending: its keys from the
    // largest down (one index probe each), each key's records by seq; the index read backwards had its ties by seq
    // in an incremental sort that read every record of the first key (2,215 at 1M for `length` desc, 14-34 ms; 200K
    // for a terms property of 5 values). The planner does not know that order: `order` empty (numbered as they come).
    const key = metadataSortKey("r", s.name);
    const inDataset = `r.dataset_id = ${literal(query.datasetId)}`;
    const hasKey = () => `${key} IS NOT NULL`;
    if (dir === "ASC")
      return {
        from: `SELECT ${COLUMNS}, ${key} AS key FROM records r WHERE ${inDataset} AND ${key} IS NOT NULL ORDER BY ${key} ASC, r.seq ASC`,
        order: "key ASC, seq ASC",
        hasKey,
      };
    const next = (where: string) => `SELECT ${key} FROM records r WHERE ${inDataset} AND ${where} ORDER BY ${key} DESC LIMIT 1`;
    return {
      from: `WITH RECURSIVE k(key) AS ((${next(`${key} IS NOT NULL`)}) UNION ALL SELECT (${next(`${key} < k.key`)}) FROM k WHERE k.key IS NOT NULL)
        SELECT w.* FROM k CROSS JOIN LATERAL (SELECT ${COLUMNS}, ${key} AS key FROM records r WHERE ${inDataset} AND ${key} = k.key ORDER BY r.seq ASC LIMIT ${walkRecords}) w`,
      order: "",
      hasKey,
    };
  }
  if (s.entity === "response_value") {
    // The records with a response (the caller's on /me): few beside the records (10.5K of 1M on the bench), each
    // with its least value (as sortExpr), sorted; every record probed for its responses took 6.6 s at 1M.
    const value = (n: Builder) => `nullif(${n.responseValue(s.questionName)}, 'null'::jsonb)`;
    const user = b.responseUserClause("s");
    return {
      from: `SELECT ${COLUMNS}, k.key FROM (SELECT DISTINCT ON (s.record_id) s.record_id, ${value(b)} AS key FROM responses s
          WHERE ${value(b)} IS NOT NULL${user} ORDER BY s.record_id, key ASC) k
        JOIN records r ON r.id = k.record_id WHERE r.dataset_id = ${b.p(query.datasetId)} ORDER BY k.key ${dir}, r.seq ASC`,
      order: `key ${dir}, seq ASC`,
      hasKey: (n) => `EXISTS (SELECT 1 FROM responses s WHERE s.record_id = r.id${n.responseUserClause("s")} AND ${value(n)} IS NOT NULL)`,
    };
  }
  return null;
}

/**
 * Whether sortedPage serves a query: one sort with an index in its order (walkSource), no vector. A metadata sort
 * only once its property's index is valid (`metadataIndexed`): without it, gathering a common word's matches first
 * (up to GATHER_RECORDS) before the plain query took the annotator's queue sorted by `length` with a new word from
 * 2.4 s to 5.2 s p50 at 1M records (the integrator's probe).
 */
export function walkable(query: SearchQuery, metadataIndexed = false): boolean {
  return !query.vector && query.sort.length === 1 && walkSource(new Builder(null), query, query.sort[0]!, metadataIndexed) !== null;
}

/**
 * The page of a query sorted by one key (walkable), without ranking or sorting every record: the records in the
 * sort's order from its index (walkSource), the filters and the text tested on each in turn until the page is
 * full, at most `walkRecords` of them; then the records without a key (by seq) the same way. When they do not fill
 * it: a text query's matches, at most `gatherRecords` (from the GIN index), sorted by the plain sort key
 * (postgres-sql.ts sortExpr, as the plain query); else null (the plain query). The same records in the same order
 * as the plain query (tests compare). At 1M bench records the annotator's queue with a new word sorted by
 * updated_at desc took 927 ms p50 (max 6.6 s) by the plain query, which ranked every match with ts_rank before
 * sorting them (the integrator's probe).
 */
export async function sortedPage(
  db: Kysely<DB>,
  query: SearchQuery,
  options: { walkRecords?: number; gatherRecords?: number; metadataIndexed?: boolean; tieRecords?: number } = {},
): Promise<SortedPage | null> {
  const need = query.offset + query.limit;
  if (query.limit === 0) return { rows: [], path: "walk" };
  const ties = await firstKeyTiesPage(db, query, (n) => passSql(n, query), COLUMNS, options.tieRecords);
  if (ties) return { rows: ties, path: "ties" };
  const walkRecords = Math.max(options.walkRecords ?? WALK_RECORDS, need);
  const b = new Builder(query.userId);
  const source = walkSource(b, query, query.sort[0]!, options.metadataIndexed ?? false, walkRecords);
  if (!source) return null;
  const keyed = await walk(db, b, query, source.from, source.order, walkRecords, need);
  let passing = keyed.passing;
  let stopped = keyed.stopped;
  if (!stopped && passing.length < need && source.hasKey !== null) {
    // The null run: the records without a key, by seq (records_dataset_seq_idx).
    const n = new Builder(query.userId);
    const hasKey = source.hasKey(n);
    const rest = await walk(
      db,
      n,
      query,
      `SELECT ${COLUMNS} FROM records r WHERE r.dataset_id = ${n.p(query.datasetId)} AND NOT ${hasKey} ORDER BY r.seq`,
      "seq",
      walkRecords,
      need - passing.length,
    );
    passing = [...passing, ...rest.passing];
    stopped = rest.stopped;
  }
  if (passing.length >= need || !stopped) return { rows: passing.slice(query.offset, need), path: "walk" };
  if (!query.text) return null;
  const gathered = await gatheredPage(db, query, options.gatherRecords ?? GATHER_RECORDS);
  return gathered && { rows: gathered, path: "gathered" };
}

/**
 * The first `need` records of `from` (in `order`) that pass the query's filters and text, among its first
 * `walkRecords`; `stopped`: the walk ended at that budget rather than at the end of `from`.
 */
async function walk(
  db: Kysely<DB>,
  b: Builder,
  query: SearchQuery,
  from: string,
  order: string,
  walkRecords: number,
  need: number,
): Promise<{ passing: { id: string; seq: number }[]; stopped: boolean }> {
  const pass = passSql(b, query);
  // The stream numbered in its order (row_number streams): the `walkRecords`-th row comes out whether it passes
  // or not, telling that the walk stopped at its budget rather than at the end of the records.
  const last = b.p(walkRecords);
  const rows = await queryRows<{ id: string; seq: number | string; passed: boolean; n: number | string }>(
    db,
    `SELECT r.id, r.seq, r.n, CASE WHEN r.n = ${last} THEN ${pass} ELSE true END AS passed FROM (
      SELECT w.*, row_number() OVER (${order ? `ORDER BY ${order}` : ""}) AS n FROM (${from} LIMIT ${last}) w) r
    WHERE r.n = ${last} OR ${pass} LIMIT ${b.p(need + 1)}`,
    b.params,
  );
  return {
    passing: rows.filter((r) => r.passed).map((r) => ({ id: r.id, seq: Number(r.seq) })),
    stopped: rows.some((r) => Number(r.n) === walkRecords),
  };
}

/**
 * A sorted page's records and how it was found: the walk of the sort's index, the text's gathered matches or the
 * top score's ties in seq order (postgres-score-ties.ts).
 */
export interface SortedPage {
  rows: { id: string; seq: number }[];
  path: "walk" | "gathered" | "ties";
}

/** The query's filters and text match on a record `r` of the walk, the filters first (AND stops at the first false). */
function passSql(b: Builder, query: SearchQuery): string {
  const parts = query.filters.map((f) => b.filter(f));
  if (query.text) {
    const match = textMatchSql(b, query, false);
    parts.push(`EXISTS (SELECT 1 FROM record_search x WHERE x.seq = r.seq AND ${match.where.join(" AND ")})`);
  }
  return parts.length > 0 ? `(${parts.join(" AND ")})` : "true";
}

/**
 * The page from the text's matches: at most `gatherRecords` + 1 of them from the GIN index (a bitmap scan: the
 * planner's walk of the primary key for a LIMIT read every row's tsvector for a word it took for common, 37 s at
 * 1M records for a word in none), then those passing the filters by the plain sort key. Null beyond the bound.
 */
async function gatheredPage(db: Kysely<DB>, query: SearchQuery, gatherRecords: number): Promise<{ id: string; seq: number }[] | null> {
  const g = new Builder(query.userId);
  const match = textMatchSql(g, { ...query, filters: [] }, true);
  const gathered = await db.transaction().execute(async (trx) => {
    await sql.raw("SELECT set_config('enable_seqscan', 'off', true), set_config('enable_indexscan', 'off', true)").execute(trx);
    return queryRows<{ seq: number | string }>(
      trx,
      `SELECT r.seq FROM ${match.from} WHERE ${match.where.join(" AND ")} LIMIT ${g.p(gatherRecords + 1)}`,
      g.params,
    );
  });
  if (gathered.length > gatherRecords) return null;
  if (gathered.length === 0) return [];
  const b = new Builder(query.userId);
  const where = [
    `r.seq = ANY(${b.p(`{${gathered.map((r) => Number(r.seq)).join(",")}}`)}::bigint[])`,
    `r.dataset_id = ${b.p(query.datasetId)}`,
    ...query.filters.map((f) => b.filter(f)),
  ];
  const s = query.sort[0]!;
  // The narrow rows of `record_search` when they hold what the filters and the sort read: at 1M records 20K gathered
  // records sorted by a metadata value took 130 ms there against 227 ms through `records` (~1.4 KB rows, read from disk).
  const narrow = onSearchRows([...query.filters, { type: "terms", scope: s.scope, values: [] }]);
  const rows = await queryRows<{ id: string; seq: number | string }>(
    db,
    `SELECT r.id, r.seq FROM ${narrow ? "record_search" : "records"} r WHERE ${where.join(" AND ")}
      ORDER BY ${b.sortExpr(s.scope)} ${s.order === "desc" ? "DESC" : "ASC"} NULLS LAST, r.seq ASC LIMIT ${b.p(query.limit)} OFFSET ${b.p(query.offset)}`,
    b.params,
  );
  return rows.map((r) => ({ id: r.id, seq: Number(r.seq) }));
}

/** The text scores of a page's records (the plain query's: the best matching field's ts_rank). */
export async function pageScores(db: Kysely<DB>, query: SearchQuery, seqs: number[]): Promise<Map<number, number>> {
  if (!query.text || seqs.length === 0) return new Map();
  const b = new Builder(query.userId);
  const field = query.text.field !== null ? ` AND f.field = ${b.p(query.text.field)}` : "";
  const rows = await queryRows<{ seq: number | string; score: number }>(
    db,
    `WITH q AS (SELECT ${b.tsQuery(textWords(query.text.q))} AS query) SELECT f.record_seq AS seq, max(ts_rank(f.tsv, q.query))::float8 AS score
      FROM records_fts f, q WHERE f.record_seq = ANY(${b.p(`{${seqs.join(",")}}`)}::bigint[]) AND f.tsv @@ q.query${field} GROUP BY f.record_seq`,
    b.params,
  );
  return new Map(rows.map((r) => [Number(r.seq), r.score]));
}
