import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { backgroundErrorLogger } from "../db/availability.js";
import { BackgroundLoop } from "./background-loop.js";
import { firstWithStatusSql } from "./postgres-first-with-status.js";
import { queryRows, versionRecordsSql } from "./postgres-sql.js";
import { firstAtLeast } from "./sorted-array.js";

/** Datasets with at least this many records get a head index; below it the head's matches cost a few ms in SQL. */
const MIN_RECORDS = 10_000;
/** A completed head of fewer records is not indexed (its matches are read in SQL, postgres-text-head.ts). */
const MIN_HEAD = 2048;
/** Records the index grows by at least (the head grows with each Submit; the records between are read in SQL meanwhile). */
const MIN_STEP = 1024;
/**
 * Records read per step at most: 1M bench records, 16K records a step held 3.5M postings (~1.8 s of PostgreSQL CPU) and their
 * 14 MB as hex text while read (the replica's RSS peak 254 against 180 MB); half of that a step.
 */
const STEP_RECORDS = 8192;
/** Postings kept per dataset at most (4 bytes each: 48 MB); a longer head is indexed up to there, the rest read in SQL. */
const MAX_POSTINGS = 12_000_000;
const TICK_MS = 5000;

/** A term of a text query's tsquery (`querytree`): a lexeme, or a prefix of lexemes (`'w':*`). */
export interface HeadTerm {
  lexeme: string;
  prefix: boolean;
}

interface Head {
  version: number;
  /** The records indexed: seqs from `first` to `end` (exclusive). */
  first: number;
  end: number;
  /** `records_fts`'s rows of those records in (seq, field) order: each row's seq and field (an index into `fields`). */
  rowSeq: Float64Array;
  rowField: Uint8Array;
  rows: number;
  fields: string[];
  /** Per lexeme, the rows holding it (ascending row numbers), a list per step read (not copied into one when a step adds to it). */
  postings: Map<string, Int32Array[]>;
  /** The lexemes, sorted (a prefix's lexemes are a range of them). */
  lexemes: string[];
  size: number;
}

/**
 * The terms of a tsquery as `querytree` prints it when it is a conjunction of lexemes and prefixes (`'a' & 'b':*`, the
 * search's words and prefixes: postgres-sql.ts tsQuery); null for anything else (no lexeme, another operator, a weight,
 * a quote or backslash in a lexeme), which the head's SQL reads instead.
 */
export function headTerms(tree: string | null | undefined): HeadTerm[] | null {
  if (!tree) return null;
  const terms: HeadTerm[] = [];
  for (const part of tree.split(" & ")) {
    const m = /^'([^'\\]+)'(:\*)?$/.exec(part.trim());
    if (!m) return null;
    terms.push({ lexeme: m[1]!, prefix: m[2] !== undefined });
  }
  return terms;
}

/**
 * The text of each large dataset's completed head in memory (per replica): every lexeme of the `records_fts` rows of its
 * records before the first pending one, with the rows that hold it, so that a phrase's or prefix's matches there are
 * counted without reading them (postgres-text-walk.ts skipHead). PostgreSQL reads them through the GIN index and then every
 * match's heap row for its seq: 1M bench records, a head of ~20K completed records, a dense prefix's matches ~7K scattered
 * heap blocks, the new prefix's p95 122 ms with 50 annotators (docs/performance.md). The index holds the text only, so a
 * Submit leaves it valid; it is valid at the dataset's text version it was read at (migration 0017), as the vocabulary
 * (postgres-text-vocabulary.ts), and grows in the background as the head does (STEP_RECORDS at a time, up to
 * MAX_POSTINGS); records of the head it does not hold yet are read in SQL.
 */
export class PostgresTextHeadIndex {
  private readonly heads = new Map<string, Head>();
  private readonly loop = new BackgroundLoop(
    () => this.tick(),
    backgroundErrorLogger("PostgreSQL: reading the completed head's text failed"),
  );
  /** Steps read (tests, diagnostics). */
  steps = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: {
      minRecords?: number;
      minHead?: number;
      minStep?: number;
      stepRecords?: number;
      maxPostings?: number;
      tickMs?: number;
    } = {},
  ) {}

  /** Postings held, all datasets (4 bytes each). */
  get size(): number {
    let n = 0;
    for (const head of this.heads.values()) n += head.size;
    return n;
  }

  /**
   * The records of seqs `from` to `to` (exclusive) whose rows match every term (in field `field`, else any), ascending,
   * and the seq up to which they were read from the index (`end`: the records from there to `to` are not known here); null
   * when the index is not at `version` or does not start at `from`.
   */
  matches(
    datasetId: string,
    version: number,
    terms: HeadTerm[],
    field: string | null,
    from: number,
    to: number,
  ): { seqs: number[]; end: number } | null {
    const head = this.heads.get(datasetId);
    if (!head || head.version !== version || head.first !== from || terms.length === 0) return null;
    const end = Math.min(to, head.end);
    const hi = firstAtLeast(head.rowSeq, end, head.rows);
    const fieldId = field === null ? -1 : head.fields.indexOf(field);
    if (field !== null && fieldId < 0) return { seqs: [], end };
    // A row's count of the terms it held so far, in order: a row matches when it reached every term.
    const reached = new Int32Array(hi);
    terms.forEach((term, t) => {
      for (const lexeme of term.prefix ? prefixRange(head.lexemes, term.lexeme) : [term.lexeme]) {
        for (const rows of head.postings.get(lexeme) ?? []) {
          if (rows[0]! >= hi) break;
          for (let i = 0; i < rows.length; i++) {
            const row = rows[i]!;
            if (row >= hi) break;
            if (reached[row] === t) reached[row] = t + 1;
          }
        }
      }
    });
    const seqs: number[] = [];
    for (let row = 0; row < hi; row++) {
      if (reached[row] !== terms.length || (fieldId >= 0 && head.rowField[row] !== fieldId)) continue;
      const seq = head.rowSeq[row]!;
      if (seqs[seqs.length - 1] !== seq) seqs.push(seq);
    }
    return { seqs, end };
  }

  /**
   * Reads the next step of a dataset's head (from its first record, or on from the records held) in one snapshot with the
   * text version; false when there is nothing to read (a short head, too few new records, the budget reached).
   */
  async step(datasetId: string): Promise<boolean> {
    return this.db
      .transaction()
      .setIsolationLevel("repeatable read")
      .execute(async (trx) => {
        const state = (
          await queryRows<{
            first: number | string | null;
            last: number | string | null;
            version: number | string;
            records: number | string;
            pending_from: number | string | null;
          }>(
            trx,
            `SELECT min(seq) AS first, max(seq) AS last, ${versionRecordsSql("$1")},
              ${firstWithStatusSql("$1")} AS pending_from
            FROM records WHERE dataset_id = $1`,
            [datasetId],
          )
        )[0];
        const version = Number(state?.version ?? 0);
        let head = this.heads.get(datasetId);
        if (head && head.version !== version) {
          this.heads.delete(datasetId);
          head = undefined;
        }
        if (!state || state.first === null || state.last === null) return false;
        const first = Number(state.first);
        const last = Number(state.last);
        // A dataset holding every seq of its range (as postgres-text-walk.ts checks): its rows by range.
        if (Number(state.records) !== last - first + 1) return false;
        const headEnd = state.pending_from === null ? last + 1 : Number(state.pending_from);
        const from = head?.end ?? first;
        const to = Math.min(headEnd, from + (this.options.stepRecords ?? STEP_RECORDS));
        if (head ? to - from < (this.options.minStep ?? MIN_STEP) : headEnd - first < (this.options.minHead ?? MIN_HEAD)) return false;
        if (head && head.size >= (this.options.maxPostings ?? MAX_POSTINGS)) return false;
        const base = head?.rows ?? 0;
        const rows = await queryRows<{ seq: number | string; field: string }>(
          trx,
          "SELECT record_seq AS seq, field FROM records_fts WHERE record_seq >= $1 AND record_seq < $2 ORDER BY record_seq, field",
          [from, to],
        );
        // PostgreSQL inverts the rows (the lexemes' row numbers as 4-byte integers): ~0.11 ms of PostgreSQL CPU a record at 1M
        // bench records, where sorting each lexeme's rows there (ORDER BY in the aggregate) tripled it; they come in row order.
        const lists = await queryRows<{ lexeme: string; rows: Buffer }>(
          trx,
          `SELECT w AS lexeme, string_agg(int4send(r.i), ''::bytea) AS rows
            FROM (SELECT (row_number() OVER (ORDER BY f.record_seq, f.field) - 1 + $3)::int AS i, f.tsv FROM records_fts f
              WHERE f.record_seq >= $1 AND f.record_seq < $2) r, unnest(tsvector_to_array(r.tsv)) w
            GROUP BY w`,
          [from, to, base],
        );
        const next: Head = head ?? {
          version,
          first,
          end: first,
          rowSeq: new Float64Array(0),
          rowField: new Uint8Array(0),
          rows: 0,
          fields: [],
          postings: new Map(),
          lexemes: [],
          size: 0,
        };
        const rowSeq = new Float64Array(base + rows.length);
        rowSeq.set(next.rowSeq.subarray(0, base));
        const rowField = new Uint8Array(base + rows.length);
        rowField.set(next.rowField.subarray(0, base));
        for (let i = 0; i < rows.length; i++) {
          const r = rows[i]!;
          let f = next.fields.indexOf(r.field);
          if (f < 0) {
            if (next.fields.length >= 255) return false; // more fields than a row's byte holds: the SQL path
            f = next.fields.push(r.field) - 1;
          }
          rowSeq[base + i] = Number(r.seq);
          rowField[base + i] = f;
        }
        for (const { lexeme, rows: bytes } of lists) {
          const added = new Int32Array(bytes.length / 4);
          for (let i = 0; i < added.length; i++) added[i] = bytes.readInt32BE(i * 4);
          if (!sorted(added)) added.sort();
          const chunks = next.postings.get(lexeme);
          if (chunks) chunks.push(added);
          else next.postings.set(lexeme, [added]);
          next.size += added.length;
        }
        next.rowSeq = rowSeq;
        next.rowField = rowField;
        next.rows = base + rows.length;
        next.end = to;
        next.lexemes = [...next.postings.keys()].sort();
        this.heads.set(datasetId, next);
        this.steps++;
        return true;
      });
  }

  /** One look: the steps of each large enough dataset whose head grew (or whose text version moved). */
  async tick(): Promise<void> {
    const rows = await queryRows<{ id: string }>(
      this.db,
      `SELECT d.id FROM datasets d WHERE (SELECT coalesce(sum(c.n), 0) FROM dataset_record_counts c WHERE c.dataset_id = d.id) >= $1`,
      [this.options.minRecords ?? MIN_RECORDS],
    );
    const live = new Set(rows.map((r) => r.id));
    for (const id of this.heads.keys()) if (!live.has(id)) this.heads.delete(id);
    // Step after step until the head is read: at a start the whole head before the annotators' calls (1M bench records, a
    // head of ~31K records: 4 steps, ~3 s of PostgreSQL CPU), not one step a tick into their work.
    for (const row of rows) while (await this.step(row.id));
  }

  /** Looks every TICK_MS (unref'd) until `stop`. */
  start(): void {
    this.loop.start(this.options.tickMs ?? TICK_MS);
  }

  async stop(): Promise<void> {
    await this.loop.stop();
  }
}

/** The sorted lexemes starting with `prefix`. */
function prefixRange(lexemes: string[], prefix: string): string[] {
  const lo = firstAtLeast(lexemes, prefix);
  let end = lo;
  while (end < lexemes.length && lexemes[end]!.startsWith(prefix)) end++;
  return lexemes.slice(lo, end);
}

function sorted(a: Int32Array): boolean {
  for (let i = 1; i < a.length; i++) if (a[i - 1]! > a[i]!) return false;
  return true;
}
