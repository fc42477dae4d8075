import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { Builder, queryRows, textWords, tsLexeme, versionRecordsSql } from "./postgres-sql.js";
import { fieldCondition } from "./postgres-text-field.js";
import { firstWithStatusSql } from "./postgres-first-with-status.js";
import { headWindows, wholeWindows } from "./postgres-text-head.js";
import { headTerms, type PostgresTextHeadIndex } from "./postgres-text-head-index.js";
import type { PostgresTextVocabulary } from "./postgres-text-vocabulary.js";
import type { SearchQuery } from "./search-port.js";

/** Rows of `records_fts` (one per text field of a record) a prefix query first checks in seq order (the probe). */
const PROBE_ROWS = 4000;
/**
 * Below this share of matching rows in a prefix's probe, its remaining matches come from the GIN index
 * (the whole table: a prefix's posting lists are collected whole, see firstMatches); else the walk in
 * seq order goes on. The walk reads ~1 µs of PostgreSQL CPU a row and needs `n / density` rows; the
 * GIN path visits every match's heap row, scattered, ~density x 2M rows at 1M records of two text fields.
 */
const WALK_MIN_DENSITY = 0.01;
/** Record seqs per bucket of `records_fts`'s GIN index (migration 0030: `array[record_seq / 1024]`). */
export const SEQ_BUCKET = 1024;
/**
 * At most this many buckets in one round, else the index without buckets: a round reads every row of its
 * buckets in the index (2,048 rows a bucket with two text fields), a sparse phrase's hundreds of buckets
 * more than the words' own posting lists (1M bench records: a round of ~300 buckets, 9,900 buffers, 75 ms).
 */
const MAX_ROUND_BUCKETS = 64;
/**
 * ... unless the index without buckets would read many more heap rows: a bucket costs about as much as this
 * many heap rows (GIN merges its 2,048 row pointers; ~300 buckets read in ~75 ms, a heap row ~10-25 µs at 1M
 * records). A round of more buckets is still taken when `count x BUCKET_ROWS + the matches needed` is below
 * the remaining matches the density found so far predicts (1M bench records: a three-word phrase in 15,500
 * rows took every one of them, 13,233 buffers read, 699 ms, for its first 1,000, where a round of ~92 buckets
 * reads ~1,000).
 */
const BUCKET_ROWS = 20;
/**
 * A prefix covering at most this many words of the dataset's vocabulary is read as those words through the buckets;
 * more, and it takes the probe (a short prefix of a large vocabulary: many posting lists a bucket).
 */
const MAX_EXPANSION = 64;
/** A completed head of at most this many buckets is skipped by counting its matches (skipHead); longer, its windows are read. */
const MAX_HEAD_BUCKETS = 256;
/** Buckets read per round beyond those the density found so far says hold the matches still needed. */
const BUCKET_MARGIN = 1.5;
/**
 * The settings of the statements after the dataset's range, in the transaction (see firstMatches): the index rounds'. The
 * probe and the walk read `records_fts` in its primary key's order with them as without (their plans: an index scan of it).
 */
export const ROUND_SETTINGS =
  "set_config('enable_seqscan', 'off', true) || set_config('work_mem', '64MB', true) || set_config('max_parallel_workers_per_gather', '0', true)";

/** What firstMatches found; `version`: the dataset's text version in the snapshot the matches were read in. */
export interface FirstMatches {
  seqs: number[];
  scores: Map<number, number>;
  path: "probe" | "walk" | "buckets" | "index";
  own: boolean;
  expanded: boolean;
  version: number;
  /** With `pendingWindow`: the matches asked in the end (`n`, or more by whole windows), and the first pending record's seq. */
  asked: number;
  pendingFrom: number | null;
  /** With `skipHead`: the dataset's first matches not read, whole windows before the first pending record (only counted). */
  skipped: number;
}

/**
 * The first `n` records of a dataset whose fields match a text query (every word in one field, a
 * prefix word `w*`, or one field), in seq order (fewer when fewer match): what the windowed order of
 * postgres-text.ts ranks, a window of matches after the other. `scores`: the score (ts_rank of the
 * best matching field) of the records read with their tsvectors (the probe's, the buckets'), which
 * then need no other reading.
 *
 * The matches come from `records_fts`'s GIN index restricted to buckets of SEQ_BUCKET consecutive
 * records (migration 0030), a round of buckets after the other from the dataset's first record: the
 * first round one bucket, each next one as many buckets as the density found so far says hold the
 * matches still needed (x BUCKET_MARGIN), at least twice as many as the round before. The index reads
 * the words' posting lists inside those buckets only, then the heap rows of their matches, ranked as
 * read: a phrase in 3% of the rows took 2.5 ms of PostgreSQL CPU for a window of 1,000 matches at 55K
 * bench records, where the walk through every row in seq order (the rows of ~1,000 / density records)
 * took 23 ms, and the whole index (every match of the table, then sorted) grew with the table. When the
 * buckets would cover the rest of the dataset anyway (a sparse query), the index without buckets (its
 * posting lists are short) gives every remaining match, ranked as read too, sorted (`seq + 0`: not the
 * primary key's order).
 *
 * A prefix word's entries are not read bucket by bucket: PostgreSQL's GIN first collects every row of
 * every word with the prefix (a bitmap of the whole table: through the buckets, prefixes took 10-90%
 * more PostgreSQL CPU at 55K bench records than the walk below, and the bitmap grows with the table).
 * A prefix query checks the dataset's first PROBE_ROWS rows in seq order (`ts_match_vq`, the function
 * of `@@`, which no index serves), ranked as read; a dense prefix needs nothing else. Then by the
 * probe's density (WALK_MIN_DENSITY): the walk goes on in seq order, ranking the matches as it reads
 * them, or, sparse, the index without buckets gives every remaining match.
 *
 * The index rounds run with sequential scans off and no parallel workers (a parallel bitmap heap scan
 * of 65K rows took 550 ms at 1M records), in the statements' transaction: PostgreSQL's estimate of the
 * matches of words that occur together or of a prefix is far off (a prefix in ~180K rows estimated at
 * 10K).
 */
export async function firstMatches(
  db: Kysely<DB>,
  query: SearchQuery,
  n: number,
  /**
   * Tests: a smaller probe (PROBE_ROWS) and density (WALK_MIN_DENSITY), the index path instead of the
   * buckets, the buckets of the first round and of any round (MAX_ROUND_BUCKETS), to take each path and
   * several rounds on few records.
   */
  options: {
    probeRows?: number;
    walkMinDensity?: number;
    path?: "index";
    firstBuckets?: number;
    maxRoundBuckets?: number;
    bucketRows?: number;
    /**
     * false: `records_fts` has no valid bucket index yet (a database upgraded with records, while the server
     * builds it: postgres-text-buckets.ts), and words take the prefixes' probe, walk or index too.
     */
    buckets?: boolean;
    /** The datasets' vocabularies (postgres-text-vocabulary.ts): a prefix read as the words it covers through the buckets. */
    vocabulary?: PostgresTextVocabulary | null;
    /** Only the records after this seq (the windows already read end there: postgres-text.ts extends them). */
    after?: number;
    /**
     * Windows of this many matches (postgres-text.ts RANK_WINDOW): read on, whole windows more than `n - 1`, until a match of a
     * pending record is read (the first pending record of the dataset in the snapshot, `pendingFrom`), when the query keeps
     * pending records only and a completed head precedes them (a team's first Submits: 10,583 records of the 1M bench dataset,
     * whose phrases' first windows hold none): one transaction instead of a page grown window by window, 2-4 of them a call.
     */
    pendingWindow?: number;
    /**
     * With `pendingWindow`, from the dataset's first record: the whole windows of matches before the first pending record are
     * counted, not read and ranked (`skipped`), through the buckets, and the windows are read from the first match after them.
     * A query keeping pending records only fails every record before it, whatever the windows' order there (postgres-text.ts
     * keeps such windows under a key of their own).
     */
    skipHead?: boolean;
    /** `records_fts`'s index with the fields' names is valid (migration 0037): a field is read in the index (postgres-text-field.ts). */
    fieldIndex?: boolean;
    /** The completed heads' text in memory (postgres-text-head-index.ts): skipHead counts the head's matches there. */
    headIndex?: PostgresTextHeadIndex | null;
  } = {},
): Promise<FirstMatches> {
  // One snapshot for the dataset's range and record count and every read of matches (`own` holds for all of them).
  return db
    .transaction()
    .setIsolationLevel("repeatable read")
    .execute((trx) => matchesIn(trx, query, n, options));
}

async function matchesIn(
  db: Kysely<DB>,
  query: SearchQuery,
  n: number,
  options: Parameters<typeof firstMatches>[3] & object,
): Promise<FirstMatches> {
  const text = query.text!;
  const words = textWords(text.q);
  const prefixes = words.filter((w) => w.prefix);
  // With a vocabulary: the dataset's text version and each prefix's lexeme (to_tsquery's, as the search's tsquery has it), in this snapshot.
  const vocabulary = options.buckets !== false && prefixes.length > 0 ? (options.vocabulary ?? null) : null;
  const r = new Builder(null);
  const dataset = r.p(query.datasetId);
  const lexemes = vocabulary ? prefixes.map((w, i) => `, querytree(${r.tsQuery([w])}) AS p${i}`).join("") : "";
  const pending = options.pendingWindow ? `, ${firstWithStatusSql(dataset)} AS pending_from` : "";
  // With a head index: the query's lexemes (querytree), to count its matches in the head in memory.
  const headIndex = options.skipHead && options.pendingWindow ? (options.headIndex ?? null) : null;
  const tree = headIndex ? `, querytree(${r.tsQuery(words)}) AS tree` : "";
  const range = (
    await queryRows<
      { first: number | string | null; end: number | string | null; records: number | string; version: number | string } & Record<
        string,
        string
      >
    >(
      db,
      // The index rounds' settings (below) with it: set for the statements after this one, one round trip less a call.
      `SELECT min(seq) AS first, max(seq) AS end,
          ${versionRecordsSql(dataset)}${lexemes}${pending}${tree},
          ${ROUND_SETTINGS} AS settings
        FROM records WHERE dataset_id = ${dataset}`,
      r.params,
    )
  )[0];
  // Each prefix as the words of the vocabulary it covers (null: not known at this version, or too many; the probe then).
  let covered: string[][] | null = null;
  if (vocabulary && range) {
    covered = [];
    for (let i = 0; i < prefixes.length && covered; i++) {
      const lexeme = /^'([^'\\]*)':\*$/.exec(range[`p${i}`] ?? "")?.[1];
      const found = lexeme === undefined ? null : vocabulary.expand(query.datasetId, Number(range.version), lexeme);
      if (found && found.length <= MAX_EXPANSION) covered.push(found);
      else covered = null;
    }
  }
  // The tsquery the GIN index reads: a prefix as its covered words (`('w1' | 'w2')`; none: nothing matches), the search's own otherwise.
  const indexQuery = (b: Builder) => {
    if (!covered) return b.tsQuery(words);
    let k = 0;
    return words.map((w) => (w.prefix ? `${b.p(covered![k++]!.map(tsLexeme).join(" | "))}::tsquery` : b.tsQuery([w]))).join(" && ");
  };
  const match = (b: Builder, indexed: boolean) => {
    // With the GIN index, the field in the index when it has the fields' names (postgres-text-field.ts).
    const field = fieldCondition(b, text.field, indexed, options.fieldIndex === true);
    return `(${indexed ? `f.tsv @@ (${indexQuery(b)})` : `ts_match_vq(f.tsv, (${b.tsQuery(words)}))`}${field})`;
  };
  const seqs: number[] = [];
  const scores = new Map<number, number>();
  const expanded = covered !== null;
  const version = Number(range?.version ?? 0);
  const pendingFrom = range?.pending_from != null ? Number(range.pending_from) : null;
  if (!range || range.first === null || range.end === null)
    return { seqs, scores, path: "buckets", own: false, expanded, version, asked: n, pendingFrom, skipped: 0 };
  if (covered?.some((c) => c.length === 0))
    return { seqs, scores, path: "buckets", own: false, expanded, version, asked: n, pendingFrom, skipped: 0 };
  // Values, not subqueries: of a subquery's range the planner assumes a narrow one. The rounds end at the dataset's last record.
  const end = Number(range.end);
  // The dataset holds every seq from its first to its last record (its counter, migration 0011, says as many records as
  // seqs; one snapshot): a row of records_fts in that range is the dataset's, with no lookup of its record. A dataset
  // imported alone; a record of another dataset between its records, or one deleted, and every match is looked up
  // (1M bench records: the lookups of a sparse phrase's 2,296 matches took 85 of its 138 ms, load 7).
  const own = Number(range.records) === end - Number(range.first) + 1;
  const inDataset = (b: Builder) =>
    own ? "" : ` AND EXISTS (SELECT 1 FROM records r WHERE r.seq = f.record_seq AND r.dataset_id = ${b.p(query.datasetId)})`;
  /** Matches are looked for from this seq on (after the windows read before, when asked); `from`: its bucket. */
  let start = Math.max(Number(range.first), (options.after ?? -Infinity) + 1);
  if (start > end) return { seqs, scores, path: "buckets", own, expanded, version, asked: n, pendingFrom, skipped: 0 };
  const bucketed = options.buckets !== false && (prefixes.length === 0 || covered !== null);
  let skipped = 0;
  const window = options.pendingWindow ?? 0;
  const headBuckets = pendingFrom !== null ? Math.floor((pendingFrom - 1) / SEQ_BUCKET) - Math.floor(start / SEQ_BUCKET) + 1 : 0;
  const skipping = options.skipHead && window > 0 && pendingFrom !== null && pendingFrom > start && headBuckets <= MAX_HEAD_BUCKETS;
  if (skipping && pendingFrom !== null) {
    // The head's matches in memory (postgres-text-head-index.ts), from the dataset's first record up to the records it holds.
    const terms = headIndex && own ? headTerms(range.tree) : null;
    const known = terms ? headIndex!.matches(query.datasetId, version, terms, text.field, start, pendingFrom) : null;
    const from = known?.end ?? start;
    const h = new Builder(null);
    const firstBucket = Math.floor(from / SEQ_BUCKET);
    // Through the buckets: the head's matches in seq order without their tsvectors' ranking: the last of its whole windows (1M
    // bench records, a head of 16.5K completed records: a dense phrase's ~10K matches there ranked in 100-190 ms of the rounds
    // below). A prefix the vocabulary does not cover (more than MAX_EXPANSION words: the bench's `qua*`, `cla*` in 87-99% of the
    // head's records): its rows checked in seq order (ts_match_vq, as the walk), where the probe and walk ranked every match of
    // the head window after window, a transaction each, and counted the queue over all of them (1M bench records, a head of
    // 19.8K records, load 7: `qua*` ~1,000 ms in 6 transactions, `cla*` ~310 ms in 5; the head's count alone 230 ms). The
    // head's records the index holds are not read (a dense prefix's matches there: ~7K scattered heap blocks).
    const head =
      known && from >= pendingFrom
        ? wholeWindows(known.seqs, 0, null, window)
        : await headWindows(
            db,
            h,
            bucketed
              ? `${match(h, true)} AND array[f.record_seq / ${SEQ_BUCKET}] && ${h.p(`{${Array.from({ length: Math.floor((pendingFrom - 1) / SEQ_BUCKET) - firstBucket + 1 }, (_, i) => firstBucket + i).join(",")}}`)}::bigint[]
            AND f.record_seq + 0 >= ${h.p(from)} AND f.record_seq + 0 < ${h.p(pendingFrom)}${inDataset(h)}`
              : `${match(h, false)} AND f.record_seq >= ${h.p(from)} AND f.record_seq < ${h.p(pendingFrom)}${inDataset(h)}`,
            window,
            known?.seqs,
          );
    if (head) {
      skipped = head.skipped;
      start = head.last + 1;
    }
  }
  let next = start;
  let count = options.firstBuckets ?? 1;
  if (options.buckets === false || (prefixes.length > 0 && !covered)) {
    // The probe: the dataset's first rows in seq order, which records match, and their score (ts_rank of the best field).
    const probeRows = options.probeRows ?? PROBE_ROWS;
    const p = new Builder(null);
    const probe = await queryRows<{ seq: number | string; hit: boolean; rows: number | string; score: number | null }>(
      db,
      `SELECT f.record_seq AS seq, bool_or(${match(p, false)}) AS hit, count(*) AS rows,
          max(CASE WHEN ${match(p, false)} THEN ts_rank(f.tsv, (${p.tsQuery(words)})) END)::float8 AS score
        FROM (SELECT f.record_seq, f.field, f.tsv FROM records_fts f ${
          own
            ? `WHERE f.record_seq >= ${p.p(start)} AND f.record_seq <= ${p.p(end)}`
            : `JOIN records r ON r.seq = f.record_seq WHERE r.dataset_id = ${p.p(query.datasetId)} AND f.record_seq >= ${p.p(start)}`
        } ORDER BY f.record_seq, f.field LIMIT ${p.p(probeRows)}) f
        GROUP BY f.record_seq ORDER BY f.record_seq`,
      p.params,
    );
    const read = probe.reduce((sum, r) => sum + Number(r.rows), 0);
    const hits = probe.filter((r) => r.hit);
    // Every row of the dataset read: its matches. Else the last record's rows beyond the probe were not read: it is read again.
    const last = read < probeRows ? end + 1 : Number(probe[probe.length - 1]!.seq);
    for (const r of hits) {
      if (Number(r.seq) >= last || seqs.length >= n) break;
      seqs.push(Number(r.seq));
      scores.set(Number(r.seq), r.score ?? 0);
    }
    if (seqs.length >= n || last > end) return { seqs, scores, path: "probe", own, expanded, version, asked: n, pendingFrom, skipped };
    if (hits.length / read < (options.walkMinDensity ?? WALK_MIN_DENSITY)) {
      count = Infinity; // sparse: the index, every remaining match
      next = last;
    } else {
      // The walk: on in seq order from the probe's last record, ranking each match as it reads it (no sort: the primary key's order).
      const w = new Builder(null);
      const rows = await queryRows<{ seq: number | string; score: number }>(
        db,
        `SELECT f.record_seq AS seq, max(ts_rank(f.tsv, (${w.tsQuery(words)})))::float8 AS score FROM records_fts f
          WHERE ${match(w, false)} AND f.record_seq >= ${w.p(last)} AND f.record_seq <= ${w.p(end)}${inDataset(w)}
          GROUP BY f.record_seq ORDER BY f.record_seq LIMIT ${w.p(n - seqs.length)}`,
        w.params,
      );
      for (const r of rows) {
        seqs.push(Number(r.seq));
        scores.set(Number(r.seq), r.score);
      }
      return { seqs, scores, path: "walk", own, expanded, version, asked: n, pendingFrom, skipped };
    }
  }
  const lastBucket = Math.floor(end / SEQ_BUCKET);
  let path: "buckets" | "index" = options.path ?? (count === Infinity ? "index" : "buckets");
  while (next <= end) {
    if (seqs.length >= n) {
      // Read on until the windows hold a pending record (pendingWindow; the last match asked only tells that more match): whole
      // windows more, as many as the density so far says reach it.
      if (!options.pendingWindow || pendingFrom === null || n < 2) break;
      const last = seqs[n - 2]!;
      if (last >= pendingFrom) break;
      const density = seqs.length / Math.max(1, last - start + 1);
      n += options.pendingWindow * Math.max(1, Math.ceil((density * (pendingFrom - last)) / options.pendingWindow));
      count = Math.max(count, Math.ceil(((n - seqs.length) * BUCKET_MARGIN) / (density * SEQ_BUCKET)));
    }
    const from = Math.floor(next / SEQ_BUCKET);
    // Too many buckets for one round (a sparse query), or the rest of the dataset: every remaining match at once, without buckets.
    // Matches left beyond `next` at the density found so far (none found yet: unknown, the index).
    const perSeq = seqs.length / Math.max(1, next - start);
    const left = perSeq * (end - next + 1);
    const costly =
      count > (options.maxRoundBuckets ?? MAX_ROUND_BUCKETS) && count * (options.bucketRows ?? BUCKET_ROWS) + (n - seqs.length) >= left;
    if (!options.path && (costly || from + count > lastBucket + 1)) path = "index";
    const buckets = path === "buckets";
    const upTo = buckets ? Math.min(lastBucket, from + count - 1) : lastBucket;
    const b = new Builder(null);
    const inBuckets = buckets
      ? ` AND array[f.record_seq / ${SEQ_BUCKET}] && ${b.p(`{${Array.from({ length: upTo - from + 1 }, (_, i) => from + i).join(",")}}`)}::bigint[]`
      : "";
    const limit = n - seqs.length;
    const rows = await queryRows<{ seq: number | string; score: number }>(
      db,
      // Ranked as read (each row's score in the subquery: computed by the aggregate, the rows were sorted with their
      // tsvectors first), on the index path too: it reads every remaining match's heap row anyway, and ranking them all
      // there (1M bench records, a sparse phrase's 2,514 rows: +1-2 ms) costs less than reading the window's rows again
      // by primary key to rank them (1,000 rows, 829 index searches, 3,652 buffers: 12-20 ms).
      `SELECT m.seq, max(m.score)::float8 AS score FROM (SELECT f.record_seq AS seq, ts_rank(f.tsv, (${b.tsQuery(words)})) AS score
          FROM records_fts f WHERE ${match(b, true)}${inBuckets} AND f.record_seq + 0 >= ${b.p(next)} AND f.record_seq + 0 <= ${b.p(end)}${inDataset(b)}
          OFFSET 0) m
          GROUP BY m.seq ORDER BY m.seq + 0 LIMIT ${b.p(limit)}`,
      b.params,
    );
    for (const r of rows) {
      seqs.push(Number(r.seq));
      scores.set(Number(r.seq), r.score);
    }
    // A round cut by its LIMIT goes on after its last match when more are asked (pendingWindow).
    next = rows.length === limit ? seqs[seqs.length - 1]! + 1 : (upTo + 1) * SEQ_BUCKET;
    // The next round: the buckets the matches still needed take at the density found so far (at least twice as many).
    const density = seqs.length / Math.max(1, next - start);
    // None found yet: a sparse query (the index, every remaining match) once half a bucket's worth of records was read without
    // one (from the dataset's first record: its first bucket, 1,023 seqs at 1M bench records, as before); fewer read (a round
    // from the end of a bucket: after a completed head's skipped windows, whose last match may end its bucket) tell nothing, and
    // the next round reads twice the buckets. The index for a phrase in ~40% of the records after an empty round of 1 seq (1M
    // bench records, the team row: `tre rituxe` ranked its ~400K matches, 11.2 s; `ri losaha` 6.9 s; main's run: 4.5 s).
    const sparse = next - start >= SEQ_BUCKET / 2;
    const needed = density > 0 ? Math.ceil(((n - seqs.length) * BUCKET_MARGIN) / (density * SEQ_BUCKET)) : sparse ? Infinity : count * 2;
    count = Math.max(count * 2, needed);
  }
  return { seqs, scores, path, own, expanded, version, asked: n, pendingFrom, skipped };
}
