import { sql, type Kysely, type Transaction } from "kysely";
import type { DB } from "../db/schema.js";
import { queryRows } from "./postgres-sql.js";
import { SeqRangeJob, type SeqRangeJobOptions } from "./postgres-seq-range-job.js";

/** Records (seqs) rewritten per batch: ~0.4 s at 1M bench records on a loaded machine (2,500 records/s). */
const BATCH_SEQS = 1000;

/**
 * Rewrites the `records_fts` rows written before migration 0028 so that their tsvectors move into their
 * rows (`STORAGE MAIN`): PostgreSQL applies a column's storage to the values it writes, so the rows of a
 * database upgraded with 1M records would otherwise keep their out-of-line tsvectors, and the text
 * searches that read them their cost (issue 31; docs/performance.md), until each record was edited.
 *
 * The range is `records_fts_inline` (next_seq .. last_seq, written by the migration; no row: nothing to
 * do). A batch, in one transaction: the row locked `FOR UPDATE SKIP LOCKED` (one replica at a time; the
 * others skip), the range's records whose tsvector is still out of line (`pg_column_toast_chunk_id`)
 * updated to the same tsvector (`|| ''`: a new value, which PostgreSQL then stores inline), `next_seq`
 * moved on; the row is deleted after the last batch. Each batch commits: a restart or a stop resumes
 * where the last one ended. Searches go on meanwhile (the values are the same; the rows are locked for
 * one batch only), and so do imports (new records are inline already). At 1M bench records: ~7 minutes
 * at full speed (2,500 records/s at load 5), ~14 with the rest between batches; the table grows by the
 * tsvectors moved in (+2.3 GB), and the TOAST table's space becomes free space in it (VACUUM FULL in a
 * maintenance window gives it back to the file system).
 */
export class PostgresTextInline extends SeqRangeJob {
  /** Whether PostgreSQL has pg_column_toast_chunk_id (14+). */
  private toastChunkId: Promise<boolean> | null = null;

  constructor(db: Kysely<DB>, options: SeqRangeJobOptions = {}) {
    super(db, "records_fts_inline", BATCH_SEQS, "PostgreSQL: moving text search vectors into their rows failed", options);
  }

  /** Rows rewritten by this process (tests, diagnostics). */
  get rewritten(): number {
    return this.written;
  }

  protected async rewrite(trx: Transaction<DB>, next: number, end: number): Promise<number> {
    // pg_column_toast_chunk_id is PostgreSQL 14's: on 13 every row of the range is written again.
    this.toastChunkId ??= queryRows<{ v: number | string }>(trx, "SELECT current_setting('server_version_num') AS v", []).then(
      (r) => Number(r[0]?.v ?? 0) >= 140000,
    );
    const outOfLine = (await this.toastChunkId) ? sql`AND pg_column_toast_chunk_id(tsv) IS NOT NULL` : sql``;
    // Rows a writer holds (a record's fields being edited: its rows are written again, inline) are
    // skipped rather than waited for, so that the batch never waits, nor deadlocks with a bulk update.
    const updated = await sql`UPDATE records_fts SET tsv = tsv || ''::tsvector
        WHERE (record_seq, field) IN (SELECT record_seq, field FROM records_fts
          WHERE record_seq >= ${next} AND record_seq <= ${end} ${outOfLine}
          FOR UPDATE SKIP LOCKED)`.execute(trx);
    return Number(updated.numAffectedRows ?? 0);
  }
}
