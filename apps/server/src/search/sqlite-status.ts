import type SQLite from "better-sqlite3";
import { RECORD_STATUSES } from "./sqlite-sql.js";
import { perConnection } from "./per-connection.js";

/** Log entries applied before a reader prunes them (readers behind then reload). */
const PRUNE_LOG_ABOVE = 50_000;

/** One dataset's record statuses by `seq - base`: 0 = no record of the dataset (or another status), else 1 + index in RECORD_STATUSES. */
interface DatasetStatuses {
  base: number;
  codes: Uint8Array;
  /** Every record of the dataset with seq <= hwm is reflected in `codes`; above it, read as new. */
  hwm: number;
}

/**
 * The record statuses of the datasets the annotation queue searched, in memory, so that its
 * exclusions (records of the statuses a filter leaves out) are a lookup instead of a read of all of
 * the dataset's records of those statuses per call (500K completed of 1M: 150-200 ms of CPU). Kept
 * exact incrementally before each use: new records by seq above the highest one read (through
 * `records_dataset_status_seq_idx`), status changes, moves and deletes from the change log of
 * migration 0015 (each logged seq's current row re-read; a delete lowers the watermarks to the largest
 * seq left, which SQLite reuses), a pruned log (a gap before the next entry) reloading everything.
 * One per connection: the text search and the metadata columns share it. Synchronous: call it on the
 * connection (no other statement in between).
 */
export class RecordStatuses {
  private readonly datasets = new Map<string, DatasetStatuses>();
  /** Last change log id applied; -1: never synced. */
  private applied = -1;
  /** Bumped whenever a kept status changes (the cached lists of `seqsWith` are then read again). */
  private generation = 0;
  private readonly lists = new Map<string, { generation: number; seqs: Uint32Array | null }>();
  /** Tests lower it to exercise pruning. */
  pruneAbove = PRUNE_LOG_ABOVE;
  /** Full loads done (tests). */
  loads = 0;

  constructor(private readonly raw: SQLite.Database) {}

  /** Memory held by the kept statuses (bytes), for measurements. */
  get memoryBytes(): number {
    let total = 0;
    for (const d of this.datasets.values()) total += d.codes.byteLength;
    return total;
  }

  /** Whether the dataset's statuses are kept (then `of` only catches up). */
  has(datasetId: string): boolean {
    return this.applied >= 0 && this.datasets.has(datasetId);
  }

  /** The dataset's statuses, up to date: `code(seq)` = 1 + index in RECORD_STATUSES, 0 when none. */
  of(datasetId: string): { code: (seq: number) => number } {
    const ds = this.sync(datasetId);
    return {
      code: (seq) => {
        const i = seq - ds.base;
        return i >= 0 && i < ds.codes.length ? ds.codes[i]! : 0;
      },
    };
  }

  /**
   * The dataset's seqs whose code is one of `codes` (codes[c] = 1), in order, or null when more than `max`
   * (a scan of the kept codes, ~1M in ~1 ms: cached until a status changes).
   */
  seqsWith(datasetId: string, codes: Uint8Array, max: number): Uint32Array | null {
    const ds = this.sync(datasetId);
    const key = `${datasetId}:${codes.join("")}:${max}`;
    const cached = this.lists.get(key);
    if (cached && cached.generation === this.generation) return cached.seqs;
    let out = new Uint32Array(Math.min(max, 1024));
    let n = 0;
    let seqs: Uint32Array | null = null;
    const all = ds.codes;
    scan: {
      for (let i = 0; i < all.length; i++)
        if (codes[all[i]!] === 1) {
          if (n === max) break scan;
          if (n === out.length) {
            const grown = new Uint32Array(Math.min(max, out.length * 2));
            grown.set(out);
            out = grown;
          }
          out[n++] = ds.base + i;
        }
      seqs = out.slice(0, n);
    }
    if (this.lists.size > 64) this.lists.clear();
    this.lists.set(key, { generation: this.generation, seqs });
    return seqs;
  }

  private sync(datasetId: string): DatasetStatuses {
    const raw = this.raw;
    const last = () =>
      (raw.prepare("SELECT seq FROM sqlite_sequence WHERE name = 'records_status_changes'").pluck().get() as number | undefined) ?? 0;
    if (this.applied < 0) {
      this.applied = last();
      this.datasets.clear();
    }
    let ds = this.datasets.get(datasetId);
    if (!ds) {
      ds = { base: 0, codes: new Uint8Array(0), hwm: 0 };
      this.datasets.set(datasetId, ds);
      this.loads++;
      this.generation++;
    }
    const changes = raw
      .prepare(
        "SELECT c.id, c.seq, c.top, r.dataset_id AS dataset, r.status FROM records_status_changes c LEFT JOIN records r ON r.seq = c.seq WHERE c.id > ? ORDER BY c.id",
      )
      .raw()
      .all(this.applied) as [number, number, number | null, string | null, string | null][];
    if (changes.length > 0 ? changes[0]![0] > this.applied + 1 : last() > this.applied) {
      // Pruned past us: reload.
      this.applied = -1;
      return this.sync(datasetId);
    }
    for (const [, seq, top, dataset, status] of changes) {
      for (const [id, d] of this.datasets) {
        if (dataset === id) {
          if (seq <= d.hwm) put(d, seq, codeOf(status));
        } else {
          const i = seq - d.base;
          if (i >= 0 && i < d.codes.length) d.codes[i] = 0;
        }
        if (top !== null && d.hwm > top) d.hwm = top;
      }
    }
    if (changes.length > 0) {
      this.applied = changes[changes.length - 1]![0];
      this.generation++;
    }
    // Records above the watermark: new, or reusing a deleted seq.
    let hwm = ds.hwm;
    RECORD_STATUSES.forEach((status, k) => {
      const seqs = raw
        .prepare("SELECT seq FROM records WHERE dataset_id = ? AND status = ? AND seq > ? ORDER BY seq")
        .pluck()
        .all(datasetId, status, ds.hwm) as number[];
      if (seqs.length === 0) return;
      if (ds.codes.length === 0) ds.base = seqs[0]!;
      for (const seq of seqs) put(ds, seq, k + 1);
      this.generation++;
      hwm = Math.max(hwm, seqs[seqs.length - 1]!);
    });
    ds.hwm = hwm;
    this.prune(changes.length > 0 ? changes[0]![0] : this.applied);
    return ds;
  }

  private prune(first: number): void {
    if (this.applied - first < this.pruneAbove) return;
    const oldest = (this.raw.prepare("SELECT min(id) FROM records_status_changes").pluck().get() as number | null) ?? this.applied;
    if (this.applied - oldest >= this.pruneAbove) this.raw.prepare("DELETE FROM records_status_changes WHERE id <= ?").run(this.applied);
  }
}

function codeOf(status: string | null): number {
  const k = status === null ? -1 : RECORD_STATUSES.indexOf(status);
  return k + 1;
}

/** Sets a seq's code, growing the array (either side) as needed. */
function put(ds: DatasetStatuses, seq: number, code: number): void {
  if (ds.codes.length === 0) ds.base = seq;
  if (code === 0 && (seq < ds.base || seq - ds.base >= ds.codes.length)) return;
  if (seq < ds.base) {
    const shift = ds.base - seq;
    const next = new Uint8Array(capacity(ds.codes.length + shift));
    next.set(ds.codes, shift);
    ds.codes = next;
    ds.base = seq;
  } else if (seq - ds.base >= ds.codes.length) {
    const next = new Uint8Array(capacity(seq - ds.base + 1));
    next.set(ds.codes);
    ds.codes = next;
  }
  ds.codes[seq - ds.base] = code;
}

const capacity = (length: number) => Math.max(1024, Math.ceil(length * 1.25));

/** The record statuses kept for this connection. */
export const recordStatusesOf = perConnection((raw) => new RecordStatuses(raw));
