import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, queryRows, versionRecordsSql } from "./postgres-sql.js";
import { occurrenceScoreSql } from "./postgres-occurrence-score.js";
import type { RankedAhead } from "./postgres-rank-ahead.js";
import { ROUND_SETTINGS, SEQ_BUCKET } from "./postgres-text-walk.js";
import type { SearchQuery } from "./search-port.js";

/** A round spans the buckets the word's density says hold the records it needs, times this. */
const SPAN_MARGIN = 1.1;
/** Points kept per word (RankedAhead.singles): a page of 256 each, 262K single occurrences. */
const MAX_POINTS = 1024;

/** A single occurrence: its id and score from the page's offset on (null before it). */
export interface SingleOccurrence {
  seq: number;
  id: string | null;
  score: number | null;
}

/**
 * The single occurrences of a plain word ranked ahead that a page without filters takes after the listed records (pageAhead,
 * postgres-text-ahead.ts): the first `n` records of the dataset that match the word and are not `listed`, in seq order, the
 * id and score (one occurrence: postgres-occurrence-score.ts) of those after the first `skip` only. Null when the dataset's
 * text version is not `version` (the list's): the caller ranks every match.
 *
 * Through `records_fts`'s GIN index restricted to buckets of seqs (migration 0030, as postgres-text-walk.ts reads a phrase's
 * matches): only the rows of records that match are read. The plain statement (record_search in seq order, the word tested on
 * each row) walked the primary key and read each record's out-of-line tsvector up to the last one it needed: the SDK's page at
 * offset 2,560 of a word in 5% of the 1M bench records after its 1,267 listed records, 30K rows, 118K buffers, 57-75 ms in the
 * bench's statement log (359 ms cold); through the buckets 1,942 rows, 2,088 buffers, 7 ms. A round reads as many buckets as
 * the word's density in the dataset (`matches` of its records) says hold the records still needed (x SPAN_MARGIN: a round
 * more costs a statement, a bucket more ~50 rows of a word in 5%), from the dataset's first record; the next one (too few)
 * as many as the density found says. One snapshot for every round.
 */
export async function singleOccurrences(
  db: Kysely<DB>,
  query: SearchQuery,
  word: string,
  listed: number[],
  n: number,
  skip: number,
  density: { version: number; matches: number },
  /** The records up to this seq were read before (singlesPage): `n` and `skip` count the records after it. */
  after: number | null = null,
): Promise<SingleOccurrence[] | null> {
  if (n <= 0) return [];
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .execute(async (trx) => {
      const r = new Builder(null);
      const dataset = r.p(query.datasetId);
      const range = (
        await queryRows<{ first: number | string | null; end: number | string | null; version: number | string; records: number | string }>(
          trx,
          // The rounds' settings (bitmap scans, no parallel workers: postgres-text-walk.ts) set for the statements after this one.
          `SELECT min(seq) AS first, max(seq) AS end, ${versionRecordsSql(dataset)}, ${ROUND_SETTINGS} AS settings
            FROM records WHERE dataset_id = ${dataset}`,
          r.params,
        )
      )[0];
      if (!range || Number(range.version) !== density.version) return null;
      if (range.first === null || range.end === null) return [];
      const first = Number(range.first);
      const end = Number(range.end);
      const records = Number(range.records);
      // The dataset holds every seq from its first record to its last: a row in that range is the dataset's, not looked up.
      const own = records === end - first + 1;
      // Records not listed that match, per seq.
      const perSeq = (Math.max(density.matches - listed.length, 1) / Math.max(records, 1)) * (records / (end - first + 1));
      const found: SingleOccurrence[] = [];
      const start = Math.max(first, (after ?? -Infinity) + 1);
      let from = start;
      let buckets = Math.ceil(((n / perSeq) * SPAN_MARGIN) / SEQ_BUCKET) + 1;
      while (from <= end && found.length < n) {
        const firstBucket = Math.floor(from / SEQ_BUCKET);
        const lastBucket = Math.min(Math.floor(end / SEQ_BUCKET), firstBucket + buckets - 1);
        const to = Math.min(end, (lastBucket + 1) * SEQ_BUCKET - 1);
        const b = new Builder(null);
        const inDataset = own ? "" : ` AND EXISTS (SELECT 1 FROM records d WHERE d.seq = s.seq AND d.dataset_id = ${b.p(query.datasetId)})`;
        const page = b.p(skip - found.length);
        const rows = await queryRows<{ seq: number | string; id: string | null; score: number | null }>(
          trx,
          // The matches' seqs (a record's fields are rows of their own) in the round's buckets, not listed, the first still needed;
          // the id and score of those on the page.
          `SELECT m.seq, CASE WHEN m.n > ${page} THEN (SELECT r.id FROM records r WHERE r.seq = m.seq) END AS id,
              CASE WHEN m.n > ${page} THEN ${occurrenceScoreSql("1")} END AS score
            FROM (SELECT s.seq, row_number() OVER (ORDER BY s.seq) AS n FROM (
              SELECT DISTINCT f.record_seq AS seq FROM records_fts f
              WHERE f.tsv @@ (${b.tsQuery([{ word, prefix: false }])})
                AND array[f.record_seq / ${SEQ_BUCKET}] && ${b.p(`{${Array.from({ length: lastBucket - firstBucket + 1 }, (_, i) => firstBucket + i).join(",")}}`)}::bigint[]
                AND f.record_seq + 0 >= ${b.p(from)} AND f.record_seq + 0 <= ${b.p(to)} OFFSET 0) s
              WHERE NOT (s.seq = ANY(${b.p(`{${listed.join(",")}}`)}::bigint[]))${inDataset} ORDER BY s.seq + 0 LIMIT ${b.p(n - found.length)}) m
            ORDER BY m.seq`,
          b.params,
        );
        for (const row of rows) found.push({ seq: Number(row.seq), id: row.id, score: row.score });
        // The next round: the buckets the records still needed take at the density found so far (none found: twice as many).
        const seen = found.length / (to - start + 1);
        buckets = seen > 0 ? Math.ceil((((n - found.length) / seen) * SPAN_MARGIN) / SEQ_BUCKET) + 1 : 2 * buckets;
        from = to + 1;
      }
      return found;
    });
}

/**
 * The single occurrences of a page (pageAhead, without filters): from the `skip`-th on (0: the first), at most `n - skip` of them
 * (fewer past the last one); null at another text version than the list's (the caller ranks every match). Read from the furthest
 * point of `ahead.singles` at or before the page (where the single occurrences read before end, in this process): the SDK iterating
 * the word's pages by offset reads each record once, not every record before its page again (a page at offset 40K of a word in 5%
 * of 1M records: ~840 buckets); the point after the records read is added.
 */
export async function singlesPage(
  db: Kysely<DB>,
  query: SearchQuery,
  word: string,
  ahead: RankedAhead,
  n: number,
  skip: number,
): Promise<SingleOccurrence[] | null> {
  const points = (ahead.singles ??= []);
  let point: { count: number; seq: number | null } = { count: 0, seq: null };
  for (const p of points) if (p.count <= skip) point = p;
  const density = { version: ahead.version, matches: ahead.records };
  const found = await singleOccurrences(db, query, word, ahead.seqs, n - point.count, skip - point.count, density, point.seq);
  if (!found) return null;
  const last = found[found.length - 1];
  if (last) {
    const added = { count: point.count + found.length, seq: last.seq };
    if (!points.some((p) => p.count === added.count)) {
      points.push(added);
      points.sort((x, y) => x.count - y.count);
      if (points.length > MAX_POINTS) points.shift();
    }
  }
  return found.slice(Math.max(0, skip - point.count));
}
