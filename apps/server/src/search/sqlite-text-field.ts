import type SQLite from "better-sqlite3";
import type { Kysely } from "kysely";
import { rawSqliteOf } from "../db/database.js";
import type { DB } from "../db/schema.js";
import { type ReadStatement, readStatementSql } from "./read-statements.js";
import { readPoolFor } from "./sqlite-read-pool.js";
import { filterSql } from "./sqlite-sql.js";

/** The row positions of every field that has one position in all FTS rows of a range, at an index version. */
interface Positions {
  version: Buffer;
  byField: Map<string, number>;
}

/**
 * Where a field is at one position in every record, so that testing the rowid is exact. The ingest keeps the `fields`
 * JSON in the order the client sent (and an update merges into the stored order), and an optional field shifts the
 * ones after it: the settings do not tell, the FTS rows do. Per dataset range: one scan of the FTS's field column
 * (records_fts_content, ~2M rows at 1M records: ~0.3 s of a read thread), kept while the index's version is the same
 * (any write to the FTS moves it); meanwhile, and where a field has several positions, the `field` column is tested.
 */
export class FieldPositions {
  private readonly known = new Map<string, Positions>();
  private readonly running = new Map<string, Promise<void>>();
  /** When the range's last scan ended and what it took (ms): scans of a moving index are spaced (SCAN_SHARE of the time). */
  private readonly lastScan = new Map<string, { at: number; ms: number }>();
  /** Scans run (tests, diagnostics). */
  scans = 0;

  constructor(private readonly db: Kysely<DB>) {}

  /**
   * The position of `field` in every FTS row of the rowid range `lo..hi`'s records at the index version `version`, or
   * null (not known at this version yet: a scan starts in the background, or the field is not always at one position).
   */
  positionOf(lo: number, hi: number, field: string, version: Buffer): number | null {
    const key = `${lo}:${hi}`;
    const positions = this.known.get(key);
    if (positions && positions.version.equals(version)) return positions.byField.get(field) ?? null;
    const last = this.lastScan.get(key);
    if (!this.running.has(key) && (!last || Date.now() - last.at >= last.ms / SCAN_SHARE)) {
      const started = Date.now();
      const scan = this.scan(lo, hi, version)
        .then((p) => {
          this.known.set(key, p);
          if (this.known.size > RANGES_KEPT) this.known.delete(this.known.keys().next().value!);
        })
        .catch(() => undefined) // a closed pool or store: the field column answers
        .finally(() => {
          this.running.delete(key);
          this.lastScan.set(key, { at: Date.now(), ms: Date.now() - started });
        });
      this.running.set(key, scan);
    }
    return null;
  }

  /** The scans running now (tests). */
  async idle(): Promise<void> {
    await Promise.all([...this.running.values()]);
  }

  /** The range's fields by position, on a read thread (or this connection). `version` was read before: never newer than the rows. */
  private async scan(lo: number, hi: number, version: Buffer): Promise<Positions> {
    this.scans++;
    const pool = readPoolFor(this.db);
    const statement = { name: "fieldPositions" as const, lo: lo * 1024, hi: hi * 1024 + 1023 };
    const rows =
      pool && !pool.isClosed
        ? await pool.rows<{ pos: number; field: string | null }>(statement)
        : await this.db.connection().execute(async () => fieldPositionRows(rawSqliteOf(this.db)!, statement));
    return { version, byField: positionsOf(rows) };
  }
}

/** The share of time a read thread spends scanning a range whose index keeps moving (an import), at most. */
const SCAN_SHARE = 0.1;
/** Ranges (datasets) whose positions are kept. */
const RANGES_KEPT = 256;

/** The distinct (position, field) pairs of the FTS rows in a rowid range (read-statements.ts' `fieldPositions`), here. */
function fieldPositionRows(raw: SQLite.Database, statement: ReadStatement): { pos: number; field: string | null }[] {
  const { sql, params } = readStatementSql(statement, filterSql);
  return raw.prepare(sql).all(...params) as { pos: number; field: string | null }[];
}

/** The fields that are at one position, which no other field shares. */
export function positionsOf(rows: { pos: number; field: string | null }[]): Map<string, number> {
  const byField = new Map<string, Set<number>>();
  const byPos = new Map<number, number>();
  for (const r of rows) {
    if (r.field === null) continue;
    const at = byField.get(r.field) ?? new Set<number>();
    at.add(r.pos);
    byField.set(r.field, at);
  }
  for (const r of rows) byPos.set(r.pos, (byPos.get(r.pos) ?? 0) + 1);
  const out = new Map<string, number>();
  for (const [field, at] of byField) {
    const [pos] = at;
    if (at.size === 1 && byPos.get(pos!) === 1) out.set(field, pos!);
  }
  return out;
}

/** The FTS index's version: its structure and averages blocks, which any write changes (~5 us). */
export function ftsVersionOf(raw: SQLite.Database): Buffer {
  return Buffer.concat(raw.prepare("SELECT block FROM records_fts_data WHERE id IN (1, 10) ORDER BY id").pluck().all() as Buffer[]);
}

/**
 * The dataset's field positions scanned ahead (search/warm-up.ts, once the index settled after writes or a restart), so
 * that the first search in one field after them is not the field column's (at 1M records ~0.3 s of a read thread).
 */
export async function warmFieldPositions(db: Kysely<DB>, datasetId: string): Promise<void> {
  const raw = rawSqliteOf(db);
  if (!raw) return;
  const { lo, hi, version } = await db.connection().execute(async () => {
    const span = raw.prepare("SELECT min(seq) AS lo, max(seq) AS hi FROM records WHERE dataset_id = ?").get(datasetId) as {
      lo: number | null;
      hi: number | null;
    };
    return { ...span, version: ftsVersionOf(raw) };
  });
  if (lo === null || hi === null) return;
  const positions = fieldPositionsFor(db);
  positions.positionOf(lo, hi, "", version);
  await positions.idle();
}

const positions = new WeakMap<Kysely<DB>, FieldPositions>();

/** The store's field positions (one per database: every search of the store shares them). */
export function fieldPositionsFor(db: Kysely<DB>): FieldPositions {
  let p = positions.get(db);
  if (!p) positions.set(db, (p = new FieldPositions(db)));
  return p;
}
