import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { stillHolds, type PagePosition } from "./page-positions.js";

/** Every this many records of a dataset (in seq order) a checkpoint: a jump then skips fewer than this many records. */
export const CHECKPOINT_EVERY = 1024;
/** Offsets below this are read by `OFFSET` (a few ms); deeper jumps use the checkpoints. */
export const CHECKPOINTS_FROM = 20_000;
/** Datasets whose checkpoints are kept (the most recently used). */
const KEPT = 16;

interface Checkpoints {
  every: number;
  /** seqs[k]: the seq of the record at position (k + 1) * every - 1 (0-based). */
  seqs: number[];
  /** The dataset's record count and largest seq in the snapshot the checkpoints were read in. */
  total: number;
  lastSeq: number;
}

const kept = new WeakMap<Kysely<DB>, Map<string, Promise<Checkpoints | null>>>();

/**
 * Where a page that jumps to a deep `offset` of a dataset's records starts (the official SDK's `records` at an offset
 * it did not reach by iterating): the nearest checkpoint at or before it, or null (then `OFFSET` from the first record).
 * An `OFFSET` of 990K reads 990K records first (PostgreSQL at 1M: 770 ms p95; an index-only scan of the positions
 * alone still ~350 ms, the index's pages not all visible); the checkpoints are read once per dataset in one scan of
 * (dataset, seq) (876 ms of PostgreSQL at 1M records, load 6) and then each jump skips fewer than CHECKPOINT_EVERY
 * records (990K: 62 ms p50, as any page). They hold as the page positions do
 * (page-positions.ts stillHolds: records only appended since; a deletion makes them read again).
 */
export async function checkpointBefore(
  db: Kysely<DB>,
  datasetId: string,
  offset: number,
  total: number,
  { every, from } = { every: CHECKPOINT_EVERY, from: CHECKPOINTS_FROM },
): Promise<PagePosition | null> {
  if (offset < from) return null;
  let byDataset = kept.get(db);
  if (!byDataset) kept.set(db, (byDataset = new Map()));
  let read = byDataset.get(datasetId);
  let points = read ? await read : null;
  if (points && (points.every !== every || !(await stillHolds(db, datasetId, points, total)))) points = null;
  if (!points) {
    // A deletion or too many appended records: read again (concurrent jumps share one read).
    if (byDataset.get(datasetId) === read) {
      read = readCheckpoints(db, datasetId, every).catch(() => null);
      byDataset.delete(datasetId);
      byDataset.set(datasetId, read);
      for (const id of byDataset.keys()) if (byDataset.size > KEPT) byDataset.delete(id);
    }
    points = await byDataset.get(datasetId)!;
    if (!points || points.total !== total) return null;
  }
  const k = Math.min(Math.floor(offset / every), points.seqs.length);
  if (k === 0) return null;
  return { offset: k * every, seq: points.seqs[k - 1]!, total: points.total, lastSeq: points.lastSeq };
}

/** One statement, one snapshot: every CHECKPOINT_EVERY-th seq, and the last record's (its position is the count). */
async function readCheckpoints(db: Kysely<DB>, datasetId: string, every: number): Promise<Checkpoints | null> {
  const rows = (
    await sql<{ seq: number | string; n: number | string }>`select seq, n from (
        select seq, row_number() over (order by seq) as n from records where dataset_id = ${datasetId}
      ) as t
      where n % ${every} = 0 or seq = (select max(seq) from records where dataset_id = ${datasetId})
      order by seq`.execute(db)
  ).rows;
  const last = rows.at(-1);
  if (!last) return null;
  const seqs = rows.filter((r) => Number(r.n) % every === 0).map((r) => Number(r.seq));
  return { every, seqs, total: Number(last.n), lastSeq: Number(last.seq) };
}
