import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { answeredStatuses } from "./answered-filter.js";
import { Builder, queryRows } from "./postgres-sql.js";
import type { SearchFilter, SearchQuery } from "./search-port.js";
import { STATUS_BUCKETS_MAX } from "./postgres-text-status.js";
import { SEQ_BUCKET } from "./postgres-text-walk.js";

/** A span of seqs (both null: no record; `wide`: more responses than RESPONSES_MAX) at a dataset's answer version. */
interface Span {
  version: string;
  lo: number | null;
  hi: number | null;
  wide: boolean;
}

/**
 * The responses a span is read from at most (each joined with its record: ~4 µs, 80 ms for 19,831 at 1M): beyond, the
 * other paths, as the records they answer would span more than STATUS_BUCKETS_MAX buckets with up to 4 responses each.
 */
export const RESPONSES_MAX = STATUS_BUCKETS_MAX * SEQ_BUCKET * 4;

/** Every response status: a response value filter (any user) passes only records with a response of any of them. */
const ANY_RESPONSE = ["discarded", "draft", "submitted"];

/**
 * The response statuses whose records are the only ones a query without a caller can pass: a response status filter
 * without `pending` (answeredStatuses), or a response value filter (terms or range: `EXISTS` a response with the value,
 * postgres-sql.ts), which passes only records someone answered, whatever the status. Else null.
 */
export function respondedStatuses(filters: SearchFilter[]): string[] | null {
  return answeredStatuses(filters) ?? (filters.some((f) => f.scope.entity === "response_value") ? ANY_RESPONSE : null);
}

/** Spans kept, least recently used first out (a few bytes each). */
const MAX_SPANS = 256;

/**
 * The admin's text search with a response status filter without `pending` (anyone's Submitted, Discarded or Draft
 * records, no caller: answeredSearch in postgres-text.ts needs one) or a response value filter (any user's answer),
 * issue 25: the records with such a response span
 * `records_fts`'s buckets as a record status does (postgres-text-status.ts), and the text's GIN entry is read in those
 * buckets only. 1M bench records, 19,831 submitted (the completed head, 20 buckets): the other paths walked a word's
 * ranking and counted its matches until 1,001 passed the filter (214 ms p95, p50 78); a response value filter took 1.9 s
 * for a word whose 1,024 records ranked ahead held fewer than 10 answered ones (every match ranked, twice).
 *
 * The span costs a join of the responses with their records (~80 ms at 19,831 responses), so it is kept per dataset
 * and statuses at the dataset's answer version (migration 0023: a row per statement that writes its responses or
 * deletes its records; its largest number and its count, which also moves when a transaction that took an earlier
 * number commits later). A search while annotators submit reads it again.
 */
export class RespondedBuckets {
  private readonly spans = new Map<string, Span>();

  constructor(private readonly db: Kysely<DB>) {}

  /**
   * The buckets spanned by the dataset's records with a response of the filter's statuses (empty: none), when the query
   * has no caller and at most `max` buckets; else null.
   */
  async buckets(query: SearchQuery, max = STATUS_BUCKETS_MAX): Promise<number[] | null> {
    const statuses = query.userId === null ? respondedStatuses(query.filters) : null;
    return statuses ? this.span(query.datasetId, statuses, max, RESPONSES_MAX) : null;
  }

  /** The buckets of the dataset's records with a response of `statuses` (read from at most `most` responses), as `buckets`. */
  async span(datasetId: string, statuses: string[], max: number, most: number): Promise<number[] | null> {
    const key = `${datasetId}\u0000${most}\u0000${JSON.stringify([...statuses].sort())}`;
    const versionSql = (dataset: string) =>
      `(SELECT coalesce(max(version), 0) || '/' || count(*) FROM dataset_answer_versions WHERE dataset_id = ${dataset})`;
    const known = this.spans.get(key);
    let span: Span | undefined;
    if (known) {
      const now = await queryRows<{ version: string }>(this.db, `SELECT ${versionSql("$1")} AS version`, [datasetId]);
      if (now[0]?.version === known.version) span = known;
    }
    if (!span) {
      const b = new Builder(null);
      const dataset = b.p(datasetId);
      // One statement: the span is never older than the version read with it.
      const row = (
        await queryRows<{ version: string; lo: number | string | null; hi: number | string | null; n: number | string }>(
          this.db,
          `SELECT ${versionSql(dataset)} AS version, min(a.seq) AS lo, max(a.seq) AS hi, count(*) AS n FROM (SELECT r.seq FROM responses s
            JOIN records r ON r.id = s.record_id WHERE r.dataset_id = ${dataset} AND s.status IN (${statuses.map((v) => b.p(v)).join(", ")})
            LIMIT ${b.p(most + 1)}) a`,
          b.params,
        )
      )[0];
      span = {
        version: String(row?.version ?? ""),
        lo: row?.lo == null ? null : Number(row.lo),
        hi: row?.hi == null ? null : Number(row.hi),
        wide: Number(row?.n ?? 0) > most,
      };
    }
    this.spans.delete(key);
    this.spans.set(key, span);
    if (this.spans.size > MAX_SPANS) this.spans.delete(this.spans.keys().next().value!);
    if (span.wide) return null;
    if (span.lo === null || span.hi === null) return [];
    const lo = Math.floor(span.lo / SEQ_BUCKET);
    const hi = Math.floor(span.hi / SEQ_BUCKET);
    return hi - lo + 1 > max ? null : Array.from({ length: hi - lo + 1 }, (_, i) => lo + i);
  }
}
