import type { SearchFilter } from "./search-port.js";
import type { filterSql as FilterSql, Param } from "./sqlite-sql.js";

/**
 * The statements of other searches that the read threads run (sqlite-read-pool.ts' `rows` jobs:
 * least similar's candidates, sqlite-knn.ts), by name with their parameters. A thread builds the SQL
 * from them itself and refuses a name it does not know: it never runs a string it was sent. The
 * request thread builds the same SQL when no thread answers, so both read alike.
 */
export type ReadStatement =
  /** The candidates (record_vectors rowids) with their cosine distance to the query, from the vectors alone. */
  | { name: "candidateDistances"; vector: Uint8Array; vrows: number[]; settingsId: string }
  /** The candidates of the dataset that pass the query's filters (rowid, record id and seq). */
  | {
      name: "candidateRecords";
      vrows: number[];
      settingsId: string;
      datasetId: string;
      excludeRecordId: string | null;
      filters: SearchFilter[];
      userId: string | null;
    }
  /**
   * The FTS rows (rowid `fr`, score `bm`) of a text query in the records `seqs`, read in the rowid ranges `spans` (one
   * FTS5 filter each: sqlite-text-answered.ts answeredRead), scored by `scoring` (`tessera_bm25` with `scoreArgs` bound
   * first, or FTS5's `bm25`), or (`scoring` null) their number of distinct records as one row. With `members` (the ranking
   * extension's tessera_seq_in: a bitmap of seqs from `first`) the records are tested by the bitmap instead of `seqs`.
   */
  | {
      name: "answeredRows";
      scoring: "tessera_bm25" | "bm25" | null;
      scoreArgs: number[];
      spans: [number, number][];
      expression: string;
      /** The field's name, or its position in every record (sqlite-text-field.ts), or null: any field. */
      field: string | number | null;
      seqs: number[];
      /** `every`: every seq of the spans is a candidate (a plain word's deep read): tessera_answered is called for each row, untested. */
      members: { first: number; bits: Uint8Array; every?: boolean } | null;
      /**
       * With `members`: the rows read by the ranking extension's tessera_answered instead of returned, which counts the
       * records and keeps the `k` best (0: counts only) in the order of windows `width` seqs wide from `lo` (0: one window),
       * the rows' lengths kept at `generation` (0: none); the statement returns no row, tessera_answered_result() answers.
       */
      top?: { k: number; lo: number; width: number; generation: number } | null;
    }
  /** The distinct (position `pos`, field) pairs of the FTS rows in the rowid range `lo..hi` (sqlite-text-field.ts). */
  | { name: "fieldPositions"; lo: number; hi: number };

/**
 * The SQL and parameters of a named statement; an unknown name throws. `filter`: sqlite-sql.ts' filterSql.
 * Self-contained (no closure, no import): the read threads evaluate its source (sqlite-read-pool.ts).
 */
export function readStatementSql(statement: ReadStatement, filter: typeof FilterSql): { sql: string; params: Param[] } {
  const params: Param[] = [];
  const p = (value: Param): string => {
    params.push(value);
    return "?";
  };
  const blob = (v: Uint8Array): Param => (Buffer.isBuffer(v) ? v : Buffer.from(v.buffer, v.byteOffset, v.byteLength));
  const candidates = (vrows: number[]) =>
    `json_each(${p(JSON.stringify(vrows))}) AS c CROSS JOIN record_vectors v ON v.rowid = c.value CROSS JOIN records r ON r.id = v.record_id`;
  // A field by name (the UNINDEXED column) or by its position in every record (the rowid's low bits: sqlite-text-field.ts).
  const fieldTest = (field: string | number) =>
    typeof field === "number" ? `(records_fts.rowid & 1023) = ${p(field)}` : `field = ${p(field)}`;
  const excluding = (id: string | null) => (id !== null ? [`r.id <> ${p(id)}`] : []);
  switch (statement.name) {
    case "candidateDistances": {
      const distance = p(blob(statement.vector));
      const sql = `SELECT v.rowid AS vrow, vec_distance_cosine(v.vector, ${distance}) AS score FROM json_each(${p(JSON.stringify(statement.vrows))}) AS c CROSS JOIN record_vectors v ON v.rowid = c.value WHERE v.vector_settings_id = ${p(statement.settingsId)}`;
      return { sql, params };
    }
    case "candidateRecords": {
      const from = `SELECT v.rowid AS vrow, r.id AS id, r.seq AS seq FROM ${candidates(statement.vrows)}`;
      const where = [
        `v.vector_settings_id = ${p(statement.settingsId)}`,
        `r.dataset_id = ${p(statement.datasetId)}`,
        ...excluding(statement.excludeRecordId),
        ...statement.filters.map((f) => filter(f, statement.userId, params)),
      ];
      return { sql: `${from} WHERE ${where.join(" AND ")}`, params };
    }
    case "answeredRows": {
      // The ranges as integer columns first: SQLite tests a row's rowid against its range again after FTS5 gave it, and two
      // json_extract per row cost ~0.6 us, 10x what FTS5 takes to read the row (1M records: a range of 523K rows, 353 -> 43 ms).
      // Its parameter first: the statement's parameters are bound in the order they appear.
      const spans = `WITH g(lo, hi) AS MATERIALIZED (SELECT json_extract(value, '$[0]'), json_extract(value, '$[1]') FROM json_each(${p(JSON.stringify(statement.spans))})) `;
      const top = statement.top;
      if (top && statement.members) {
        // The bitmap (and the field) tested first, by a CASE: an auxiliary function's call costs FTS5 a search of its cursors,
        // ~0.02 us more a row than the scalar test, for each of the span's rows (1M records: ~480K rows of a common word).
        const from = `FROM g CROSS JOIN records_fts WHERE records_fts MATCH ${p(statement.expression)} AND records_fts.rowid BETWEEN g.lo AND g.hi`;
        // Every seq a candidate and any field: no test (the CASE cost ~40 ns a row: 1M records, ~3 ms of a deep read's half).
        const tests = [
          ...(statement.field !== null ? [fieldTest(statement.field)] : []),
          ...(statement.members.every
            ? []
            : [`tessera_seq_in(${p(blob(statement.members.bits))}, ${p(statement.members.first)}, records_fts.rowid)`]),
        ];
        // The counts last: parameters are bound in the order they appear.
        const call = `tessera_answered(records_fts, ${p(blob(statement.members.bits))}, ${p(statement.members.first)}, ${p(top.k)}, ${p(top.lo)}, ${p(top.width)}, ${p(top.generation)}${statement.scoreArgs.map((n) => `, ${p(n)}`).join("")})`;
        return {
          sql: `${spans}SELECT 1 ${from} AND ${tests.length > 0 ? `CASE WHEN ${tests.join(" AND ")} THEN ${call} ELSE 0 END` : call}`,
          params,
        };
      }
      const score =
        statement.scoring === "bm25"
          ? "bm25(records_fts)"
          : `tessera_bm25(records_fts${statement.scoreArgs.map((n) => `, ${p(n)}`).join("")})`;
      const columns =
        statement.scoring !== null ? `records_fts.rowid AS fr, ${score} AS bm` : "count(DISTINCT records_fts.rowid >> 10) AS fr, 0 AS bm";
      const sql = `${spans}SELECT ${columns} FROM g CROSS JOIN records_fts WHERE records_fts MATCH ${p(statement.expression)} AND records_fts.rowid BETWEEN g.lo AND g.hi${statement.field !== null ? ` AND ${fieldTest(statement.field)}` : ""} AND ${statement.members ? `tessera_seq_in(${p(blob(statement.members.bits))}, ${p(statement.members.first)}, records_fts.rowid)` : `(records_fts.rowid >> 10) IN (SELECT value FROM json_each(${p(JSON.stringify(statement.seqs))}))`}`;
      return { sql, params };
    }
    case "fieldPositions":
      // The UNINDEXED column's table alone (contentless_unindexed): ~2M short rows at 1M records, ~0.3 s (GROUP BY with counts: 1.2 s, its sort).
      return {
        sql: `SELECT DISTINCT id & 1023 AS pos, c1 AS field FROM fts.records_fts_content WHERE id BETWEEN CAST(${p(statement.lo)} AS INTEGER) AND CAST(${p(statement.hi)} AS INTEGER)`,
        params,
      };
    default:
      throw new Error(`unknown read statement: ${String((statement as { name?: unknown }).name)}`);
  }
}
