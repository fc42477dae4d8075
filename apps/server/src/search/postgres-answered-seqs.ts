import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { type AnsweredChangesRow, answeredChangesSql, applyChanges, changesComplete } from "./postgres-answered-changes.js";
import { Builder, type Param, queryRows } from "./postgres-sql.js";

/** Memory budget of the answered records kept by one replica (bytes, 8 a record: 34K Submits take 272 KB); least recently used first out. */
const ANSWERED_BYTES = 32 * 1024 * 1024;

/** The version a user without a row in `user_answer_versions` has (migration 0043). */
const versionSql = (b: Builder, userId: string) =>
  `coalesce((SELECT v.version FROM user_answer_versions v WHERE v.user_id = ${b.p(userId)}), 0)`;

interface Entry {
  version: number;
  seqs: Float64Array;
}

/**
 * The seqs of the caller's records of a dataset with a response of some statuses (the Submitted, Draft, Discarded
 * views), ascending, kept in this replica's memory under the caller's answer version (`user_answer_versions`,
 * migration 0043: triggers move it whenever one of the user's responses is written with another status, inserted or
 * deleted, on any replica). Reading them costs a lookup of each response's record (1M bench records, 34K Submits:
 * 148K buffers, ~210 ms); a search that finds its version unchanged reads one row instead, and one that finds it moved
 * reads only the records the versions since changed (migration 0044's log, postgres-answered-changes.ts), or everything
 * again when the log cannot say. The version and the seqs (or the changes) are read in one statement (one snapshot):
 * the seqs are never older than their version.
 */
export class AnsweredSeqs {
  private readonly cache = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly budget = ANSWERED_BYTES,
  ) {}

  /** Reads of all the records (tests: a search at an unchanged version reads none). */
  reads = 0;
  /** Entries brought to a newer version from the log of changes alone (tests). */
  refreshes = 0;

  /** Memory held (bytes), for tests and measurements. */
  get cachedBytes(): number {
    return this.bytes;
  }

  /** The caller's answered records of the dataset with one of `statuses`, ascending seqs. */
  async seqs(datasetId: string, userId: string, statuses: string[]): Promise<Float64Array> {
    const key = `${datasetId}\u0000${userId}\u0000${[...new Set(statuses)].sort().join("\u0000")}`;
    const cached = this.cache.get(key);
    if (cached) {
      const fresh = await this.refresh(datasetId, userId, statuses, cached);
      if (fresh) {
        this.put(key, fresh);
        return fresh.seqs;
      }
    }
    this.reads++;
    const { sql, params } = answeredSeqsSql(datasetId, userId, statuses);
    const [row] = await queryRows<{ version: number | string; seqs: string }>(this.db, sql, params);
    const entry = { version: Number(row?.version ?? 0), seqs: parseSeqs(row?.seqs ?? "{}") };
    this.put(key, entry);
    return entry.seqs;
  }

  /**
   * The kept entry brought to the current version from the log of the versions after it (migration 0044), or null
   * when the log cannot say (pruned, too many changes, a record gone): then everything is read again.
   */
  private async refresh(datasetId: string, userId: string, statuses: string[], cached: Entry): Promise<Entry | null> {
    const { sql, params } = answeredChangesSql(datasetId, userId, statuses, cached.version);
    const [row] = await queryRows<AnsweredChangesRow>(this.db, sql, params);
    if (!row || !changesComplete(row, cached.version)) return null;
    const version = Number(row.version);
    if (version === cached.version) return cached;
    this.refreshes++;
    const changed = parseSeqs(row.changed);
    if (changed.length === 0) return { version, seqs: cached.seqs };
    return { version, seqs: applyChanges(cached.seqs, changed, parseSeqs(row.answered)) };
  }

  private put(key: string, entry: Entry): void {
    const old = this.cache.get(key);
    if (old) {
      this.cache.delete(key);
      this.bytes -= old.seqs.byteLength;
    }
    if (entry.seqs.byteLength > this.budget) return;
    this.cache.set(key, entry);
    this.bytes += entry.seqs.byteLength;
    for (const [k, e] of this.cache) {
      if (this.bytes <= this.budget) break;
      this.cache.delete(k);
      this.bytes -= e.seqs.byteLength;
    }
  }
}

/**
 * The statement of AnsweredSeqs: the caller's answer version and answered records (as PostgreSQL's own array literal,
 * parsed by parseSeqs: not 34K rows), one snapshot. A caller the statistics do not know (estimated at 1 response) is
 * read from responses_user_record_idx, each record looked up by id.
 */
export function answeredSeqsSql(datasetId: string, userId: string, statuses: string[]): { sql: string; params: Param[] } {
  const b = new Builder(null);
  return {
    sql: `SELECT ${versionSql(b, userId)} AS version, (SELECT coalesce(array_agg(r.seq ORDER BY r.seq), '{}')::text FROM responses s
      JOIN records r ON r.id = s.record_id WHERE s.user_id = ${b.p(userId)} AND s.status IN (${statuses.map((v) => b.p(v)).join(", ")})
      AND r.dataset_id = ${b.p(datasetId)}) AS seqs`,
    params: b.params,
  };
}

/** A PostgreSQL `bigint[]` literal (`{1,2,3}`) as numbers. */
export function parseSeqs(literal: string): Float64Array {
  const body = literal.slice(1, -1);
  if (body.length === 0) return new Float64Array(0);
  const parts = body.split(",");
  const out = new Float64Array(parts.length);
  for (let i = 0; i < parts.length; i++) out[i] = Number(parts[i]);
  return out;
}
