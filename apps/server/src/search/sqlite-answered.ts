import type SQLite from "better-sqlite3";
import { perConnection } from "./per-connection.js";

/** Sets kept at most, one per (dataset, user, statuses) searched, and their bytes (4 a record): least recently used out first. */
const KEPT = { sets: 256, bytes: 32 * 1024 * 1024 };

/** Sorted seqs, at the dataset's `dataset_answer_versions` version and the largest `responses` rowid they reflect. */
type AnsweredSet = { seqs: Uint32Array; version: number; maxRowid: number };

/**
 * The records a user answered in a dataset with some statuses (the annotation page's Submitted, Draft and Discarded
 * views), as sorted seqs in memory, so that those views and their text searches start from them instead of reading
 * the user's responses and their records on every call (issue 31: 50,000 answered records at 1M are ~100K index
 * probes, tens of ms each call). Kept exact without a change log of responses: every response written or deleted
 * moves its dataset's `dataset_answer_versions` by one (migration 0023, triggers), so when the version moved by as
 * many as there are new `responses` rows of the dataset (rowid above the last one seen) every change was an insert,
 * and only the new rows' records are read again; any other change (an update, a delete, a record deleted) reads the
 * set again. Records never move between datasets through the API; the pages' ids are read by dataset anyway.
 * One per connection, synchronous: call it on the connection (no other statement in between).
 */
export class AnsweredSets {
  private readonly sets = new Map<string, AnsweredSet>();
  private bytes = 0;
  /** Full reads and incremental catch-ups (tests, diagnostics). */
  loads = 0;
  caughtUp = 0;

  constructor(private readonly raw: SQLite.Database) {}

  /** Memory held (bytes), for measurements. */
  get memoryBytes(): number {
    return this.bytes;
  }

  /**
   * The seqs of the dataset's records `userId` (null: anyone) answered with one of `statuses` (null: any), ascending,
   * up to date. Do not modify.
   */
  seqsOf(datasetId: string, userId: string | null, statuses: readonly string[] | null): Uint32Array {
    const wanted = statuses === null ? null : [...new Set(statuses)].sort();
    const key = `${datasetId}\u0000${userId ?? "*"}\u0000${wanted === null ? "*" : wanted.join("\u0000")}`;
    const version = this.versionOf(datasetId);
    let set = this.sets.get(key);
    if (set) this.sets.delete(key);
    if (set && set.version !== version) set = this.catchUp(set, datasetId, userId, wanted, version) ?? undefined;
    if (!set) set = this.load(datasetId, userId, wanted, version);
    this.sets.set(key, set); // most recent last
    this.account();
    return set.seqs;
  }

  private versionOf(datasetId: string): number {
    return (this.raw.prepare("SELECT version FROM dataset_answer_versions WHERE dataset_id = ?").pluck().get(datasetId) as number) ?? 0;
  }

  private maxRowid(): number {
    return (this.raw.prepare("SELECT coalesce(max(rowid), 0) FROM responses").pluck().get() as number) ?? 0;
  }

  private load(datasetId: string, userId: string | null, statuses: string[] | null, version: number): AnsweredSet {
    this.loads++;
    const byUser = userId !== null ? "s.user_id = ? AND " : "";
    const byStatus = statuses !== null ? `s.status IN (${statuses.map(() => "?").join(", ")}) AND ` : "";
    const seqs = mergeSorted(
      new Uint32Array(0),
      this.raw
        .prepare(`SELECT r.seq FROM responses s CROSS JOIN records r ON r.id = s.record_id WHERE ${byUser}${byStatus}r.dataset_id = ?`)
        .pluck()
        .all(...(userId !== null ? [userId] : []), ...(statuses ?? []), datasetId) as number[],
    );
    return { seqs, version, maxRowid: this.maxRowid() };
  }

  /** The set brought to `version` from the responses inserted since, or null when the dataset changed otherwise (read again). */
  private catchUp(
    set: AnsweredSet,
    datasetId: string,
    userId: string | null,
    statuses: string[] | null,
    version: number,
  ): AnsweredSet | null {
    if (version < set.version) return null;
    const rows = this.raw
      .prepare(
        "SELECT s.rowid, s.user_id, s.status, r.seq, r.dataset_id FROM responses s LEFT JOIN records r ON r.id = s.record_id WHERE s.rowid > ? ORDER BY s.rowid",
      )
      .raw()
      .all(set.maxRowid) as [number, string, string, number | null, string | null][];
    const ofDataset = rows.filter((r) => r[4] === datasetId);
    if (ofDataset.length !== version - set.version) return null;
    this.caughtUp++;
    const added = ofDataset
      .filter((r) => (userId === null || r[1] === userId) && (statuses === null || statuses.includes(r[2])))
      .map((r) => r[3]!);
    const maxRowid = rows.length > 0 ? rows[rows.length - 1]![0] : set.maxRowid;
    return { seqs: added.length === 0 ? set.seqs : mergeSorted(set.seqs, added), version, maxRowid };
  }

  private account(): void {
    let bytes = 0;
    for (const s of this.sets.values()) bytes += s.seqs.byteLength;
    for (const [key, s] of this.sets) {
      if (this.sets.size <= KEPT.sets && bytes <= KEPT.bytes) break;
      this.sets.delete(key);
      bytes -= s.seqs.byteLength;
    }
    this.bytes = bytes;
  }
}

/** `seqs` (sorted) with `more` added, sorted, without duplicates. */
export function mergeSorted(seqs: Uint32Array, more: number[]): Uint32Array {
  const all = new Uint32Array(seqs.length + more.length);
  all.set(seqs);
  all.set(more, seqs.length);
  all.sort();
  let n = 0;
  for (let i = 0; i < all.length; i++) if (n === 0 || all[n - 1] !== all[i]) all[n++] = all[i]!;
  return all.slice(0, n);
}

/** The answered sets kept for this connection. */
export const answeredSetsOf = perConnection((raw) => new AnsweredSets(raw));
