import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";

/**
 * Where the offset pages of a dataset's records (in `seq` order) start, remembered from the pages served: the
 * official SDK iterates a dataset by offset (`dataset.records`: offset 0, 256, 512, ...), and an `OFFSET n` reads
 * the n records before the page (1M records on PostgreSQL: 245 ms a page at offset 0 → 793 ms at 990K, p50;
 * iterating the dataset is then quadratic). A page that ends at position p leaves the seq of its last record for
 * the page at offset p, which then reads from that seq on.
 *
 * A position stays right while no record at or before it is gone: records are only appended (a new record's seq
 * is above every record's of the dataset), so a start is taken only when the dataset's record count has grown by
 * exactly the records appended after the dataset's last seq when it was noted (a deletion makes them differ and
 * the page reads by `OFFSET` again). Reads the database each time, so it holds across replicas. On PostgreSQL, a
 * record committed late with a seq below the noted last one and a deletion between two pages could cancel out;
 * offset paging during writes skips or repeats records anyway.
 */
export interface PagePosition {
  /** The page's offset. */
  offset: number;
  /** The seq of the record just before it. */
  seq: number;
  /** The dataset's record count and its largest seq when noted. */
  total: number;
  lastSeq: number;
}

/** Positions kept per dataset (the most recently used); several SDK clients iterating one dataset each keep theirs. */
const KEPT = 64;
/** Records appended since a position was noted that are counted to check it; beyond, the page uses `OFFSET`. */
const APPENDED_CHECKED = 10_000;

const positions = new WeakMap<Kysely<DB>, Map<string, PagePosition[]>>();

/**
 * The nearest noted position at or before `offset` that still holds for the dataset with `total` records now, or
 * null (the page then starts from the dataset's first record).
 */
export async function pageStart(db: Kysely<DB>, datasetId: string, offset: number, total: number): Promise<PagePosition | null> {
  const kept = positions.get(db)?.get(datasetId);
  if (!kept || offset === 0) return null;
  let best: PagePosition | null = null;
  for (const p of kept) if (p.offset <= offset && (!best || p.offset > best.offset)) best = p;
  if (!best) return null;
  return (await stillHolds(db, datasetId, best, total)) ? best : forget(db, datasetId, best);
}

/**
 * Whether a position noted when the dataset had `noted.total` records and its largest seq was `noted.lastSeq` still
 * holds with `total` records now: exactly the records appended since are new (none at or before it is gone).
 */
export async function stillHolds(
  db: Kysely<DB>,
  datasetId: string,
  noted: { total: number; lastSeq: number },
  total: number,
): Promise<boolean> {
  const appended = total - noted.total;
  if (appended < 0 || appended > APPENDED_CHECKED) return false;
  const counted = Number(
    (
      await sql<{
        n: number | string;
      }>`select count(*) as n from (select 1 from records where dataset_id = ${datasetId} and seq > ${noted.lastSeq} limit ${APPENDED_CHECKED + 1}) as a`.execute(
        db,
      )
    ).rows[0]?.n ?? 0,
  );
  return counted === appended;
}

/** Notes where the page after one that ends at `offset` (its last record `seq`) starts. */
export async function notePagePosition(db: Kysely<DB>, datasetId: string, offset: number, seq: number, total: number): Promise<void> {
  const last = await db
    .selectFrom("records")
    .select("seq")
    .where("dataset_id", "=", datasetId)
    .orderBy("seq", "desc")
    .limit(1)
    .executeTakeFirst();
  if (!last) return;
  let byDataset = positions.get(db);
  if (!byDataset) positions.set(db, (byDataset = new Map()));
  const kept = (byDataset.get(datasetId) ?? []).filter((p) => p.offset !== offset);
  kept.push({ offset, seq, total, lastSeq: Number(last.seq) });
  byDataset.set(datasetId, kept.slice(-KEPT));
}

function forget(db: Kysely<DB>, datasetId: string, position: PagePosition): null {
  const byDataset = positions.get(db);
  const kept = byDataset?.get(datasetId);
  if (kept)
    byDataset!.set(
      datasetId,
      kept.filter((p) => p !== position),
    );
  return null;
}
