import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, firstPassingSeqSql, queryRows } from "./postgres-sql.js";
import type { SearchQuery, SearchSort } from "./search-port.js";

/**
 * Records read at most, in seq order, for the ties of the first key. At 1M bench records the top score (1) is held
 * by 0.5% of the records: a page of 10 pending ones within ~2,100 records, 18 ms (load 6-8); a record costs ~8.5 µs
 * (its suggestion's probe), so a walk that finds too few wastes at most ~35 ms before the sorted walk.
 */
export const TIE_RECORDS = 4_000;

/**
 * The first key of a sort in its order (`first`, uncorrelated) and a record `r`'s key (`key`, as the plain query's
 * sortExpr), for the sorts whose first page firstKeyTiesPage reads; null for the others.
 * - A suggestion's score: the first score from suggestions_question_score_top_idx (0036), as the sorted walk reads it.
 * - A response value (each record's least, the caller's responses on /me): the least value of all responses
 *   (ascending) or the largest of the records' least values (descending), over every dataset: no join with the
 *   records (20K at 1M bench records, most of the sorted walk's 131 ms p50). A record of this dataset with that key
 *   proves it is this dataset's first key too (no record of it can come before).
 */
function firstKeySql(b: Builder, sort: SearchSort, dataset: string): { first: string; key: string } | null {
  const s = sort.scope;
  const dir = sort.order === "desc" ? "DESC" : "ASC";
  if (s.entity === "suggestion" && s.property === "score") {
    const question = b.p(s.questionId);
    const top = (g: string) => `tessera_json_top(${g}.score)`;
    return {
      first: `(SELECT ${top("g")} FROM suggestions g JOIN records r ON r.id = g.record_id WHERE g.question_id = ${question}
        AND ${top("g")} IS NOT NULL AND r.dataset_id = ${dataset} ORDER BY ${top("g")} ${dir} LIMIT 1)`,
      key: `(SELECT ${top("g")} FROM suggestions g WHERE g.record_id = r.id AND g.question_id = ${question})`,
    };
  }
  if (s.entity === "response_value") {
    const key = b.sortExpr(s);
    const value = `nullif(${b.responseValue(s.questionName)}, 'null'::jsonb)`;
    const values = `FROM responses s WHERE ${value} IS NOT NULL${b.responseUserClause("s")}`;
    return {
      first:
        dir === "ASC"
          ? `(SELECT ${value} AS v ${values} ORDER BY v ASC LIMIT 1)`
          : `(SELECT t.v FROM (SELECT DISTINCT ON (s.record_id) ${value} AS v ${values} ORDER BY s.record_id, v ASC) t ORDER BY t.v DESC LIMIT 1)`,
      key,
    };
  }
  return null;
}

/**
 * The first page sorted by a suggestion's score or a response value when it lies within the ties of the first key
 * (firstKeySql): the records in seq order (the plain query's order among ties, from the first
 * record the filters' status can pass), each tested for that key and the filters, until the page is full, at most
 * `tieRecords` of them. Null when they do not fill it (the sorted walk then, postgres-sorted.ts). The suggestions'
 * index in score order gives the ties in no useful order: the walk through it read every tie of the top score and
 * each tie's record for its seq before sorting them (5,068 at 1M bench records: 101 ms p50, 124 p95); by a response
 * value, every response's record. No text (a word passes too few records of the walk).
 */
export async function firstKeyTiesPage(
  db: Kysely<DB>,
  query: SearchQuery,
  pass: (b: Builder) => string,
  columns: string,
  tieRecords = TIE_RECORDS,
): Promise<{ id: string; seq: number }[] | null> {
  const sort = query.sort[0];
  if (query.text || query.vector || query.sort.length !== 1 || !sort) return null;
  const need = query.offset + query.limit;
  if (need > tieRecords) return null;
  const b = new Builder(query.userId);
  const dataset = b.p(query.datasetId);
  const keys = firstKeySql(b, sort, dataset);
  if (!keys) return null;
  const { first, key } = keys;
  const start = firstPassingSeqSql(b, query.filters, dataset);
  const rows = await queryRows<{ id: string; seq: number | string }>(
    db,
    `SELECT r.id, r.seq FROM (SELECT ${columns} FROM records r WHERE r.dataset_id = ${dataset} AND r.seq >= ${start} ORDER BY r.seq LIMIT ${b.p(tieRecords)}) r
      WHERE ${key} = ${first} AND ${pass(b)} ORDER BY r.seq LIMIT ${b.p(need)}`,
    b.params,
  );
  if (rows.length < need) return null;
  return rows.slice(query.offset).map((r) => ({ id: r.id, seq: Number(r.seq) }));
}
