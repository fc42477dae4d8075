import type SQLite from "better-sqlite3";
import { perConnection } from "./per-connection.js";
import { RECORD_STATUSES } from "./sqlite-sql.js";
import { recordStatusesOf } from "./sqlite-status.js";

/** Response statuses counted, in the order of their codes (1 + index). */
export const RESPONSE_STATUSES = ["submitted", "discarded", "draft"] as const;
type ResponseStatus = (typeof RESPONSE_STATUSES)[number];
type RecordStatus = "pending" | "completed";

/** Changes logged between two reads at most; beyond it the triggers stop logging and the next read loads everything again. */
const LOG_MAX = 100_000;
/** Largest response rowid kept (9 bytes per rowid up to it: 450 MB); beyond it the plain query answers. */
const ROWIDS_MAX = 50_000_000;

/** One user's counts: by record status, then by response status. */
export type UserTally = { userId: string; counts: Record<RecordStatus, Record<ResponseStatus, number>> };

/**
 * Every response of the instance as (record seq, user, status) by rowid, in memory, so that the users' progress of a
 * dataset is a count over typed arrays with the record statuses kept for the search (sqlite-status.ts) instead of a
 * query that looks up each response's record (1M records, 354K responses: 1,454 ms of CPU per call).
 * Kept exact without a migration: TEMP triggers of this connection (the store's only writer) log the rowid of each
 * response inserted, updated or deleted, and each response change of any connection moves its dataset's
 * `dataset_answer_versions` by one (migration 0023): when the versions moved by as many as were logged, the logged rows
 * are read again; otherwise (a write of another process, a log that overflowed, a record deleted: its responses'
 * deletes, logged, may not move the version, which would hide as many writes of another process) everything is read
 * again (the responses joined to the records' id index, ~0.5 s at 354K).
 * One per connection, synchronous: call it on the connection (no other statement in between).
 */
export class ResponseTallies {
  private seq = new Uint32Array(0);
  private user = new Uint32Array(0);
  /** 0: no response at that rowid, else 1 + index in RESPONSE_STATUSES; 255: a status not counted here. */
  private status = new Uint8Array(0);
  private odd = 0;
  private users: string[] = [];
  private readonly userIndex = new Map<string, number>();
  /** Sum of the versions of `dataset_answer_versions` reflected; null: never loaded. */
  private version: number | null = null;
  /** Full reads and logged rows applied (tests, diagnostics). */
  loads = 0;
  applied = 0;
  /** Tests lower it (before the first use) to exercise a log that overflowed. */
  logMax = LOG_MAX;

  constructor(private readonly raw: SQLite.Database) {}

  /** Memory held (bytes), for measurements. */
  get memoryBytes(): number {
    return this.seq.byteLength + this.user.byteLength + this.status.byteLength;
  }

  /**
   * Each user's responses to the dataset's records by record status and response status, users without a response
   * left out (ids; any order), or null when the plain query must answer (rowids too large, a status not counted here).
   */
  tallies(datasetId: string): UserTally[] | null {
    if (!this.sync()) return null;
    if (this.odd > 0) return null;
    const { code } = recordStatusesOf(this.raw).of(datasetId);
    const counts = new Uint32Array(this.users.length * 6);
    const { seq, user, status } = this;
    for (let r = 0; r < status.length; r++) {
      const s = status[r]!;
      if (s === 0) continue;
      const c = code(seq[r]!);
      if (c !== 0) counts[user[r]! * 6 + (c - 1) * 3 + s - 1]!++;
    }
    const out: UserTally[] = [];
    for (let u = 0; u < this.users.length; u++) {
      const at = u * 6;
      if (counts.subarray(at, at + 6).every((n) => n === 0)) continue;
      const bucket = (c: number) => ({
        submitted: counts[at + c * 3]!,
        discarded: counts[at + c * 3 + 1]!,
        draft: counts[at + c * 3 + 2]!,
      });
      const byRecord = Object.fromEntries(RECORD_STATUSES.map((name, c) => [name, bucket(c)])) as UserTally["counts"];
      out.push({ userId: this.users[u]!, counts: byRecord });
    }
    return out;
  }

  /** Brings the arrays up to date; false when they cannot hold the responses. */
  private sync(): boolean {
    const raw = this.raw;
    if (this.version === null) return this.load();
    const version = this.versionSum();
    const logged = raw.prepare("SELECT count(*) FROM temp.tessera_response_log").pluck().get() as number;
    const recordsDeleted = raw.prepare("SELECT deleted FROM temp.tessera_records_deleted").pluck().get() as number;
    if (recordsDeleted !== 0 || version - this.version !== logged) return this.load();
    if (logged === 0) return true;
    const rows = raw
      .prepare(
        `SELECT l.rid, s.user_id, s.status, r.seq FROM (SELECT DISTINCT rid FROM temp.tessera_response_log) l
         LEFT JOIN responses s ON s.rowid = l.rid LEFT JOIN records r ON r.id = s.record_id`,
      )
      .raw()
      .all() as [number, string | null, string | null, number | null][];
    for (const [rowid, userId, status, seq] of rows) if (!this.put(rowid, userId, status, seq)) return this.load();
    this.applied += rows.length;
    raw.prepare("DELETE FROM temp.tessera_response_log").run();
    this.version = version;
    return true;
  }

  private versionSum(): number {
    return this.raw.prepare("SELECT coalesce(sum(version), 0) FROM dataset_answer_versions").pluck().get() as number;
  }

  /** Everything read again, the log started afresh (the triggers made on first use). */
  private load(): boolean {
    const raw = this.raw;
    this.loads++;
    this.logChanges();
    raw.prepare("DELETE FROM temp.tessera_response_log").run();
    raw.prepare("UPDATE temp.tessera_records_deleted SET deleted = 0").run();
    this.version = this.versionSum();
    const top = (raw.prepare("SELECT coalesce(max(rowid), 0) FROM responses").pluck().get() as number) ?? 0;
    this.seq = new Uint32Array(0);
    this.user = new Uint32Array(0);
    this.status = new Uint8Array(0);
    this.odd = 0;
    if (top >= ROWIDS_MAX) {
      this.version = null;
      return false;
    }
    this.grow(top + 1);
    // The records' id index holds each record's seq (its rowid): the responses are joined to it without reading a record.
    const rows = raw
      .prepare("SELECT s.rowid, s.user_id, s.status, r.seq FROM responses s CROSS JOIN records r ON r.id = s.record_id")
      .raw()
      .iterate() as IterableIterator<[number, string, string, number]>;
    for (const [rowid, userId, status, seq] of rows) this.put(rowid, userId, status, seq);
    return true;
  }

  /** Sets one rowid (null user or seq: no response there); false when it is beyond ROWIDS_MAX. */
  private put(rowid: number, userId: string | null, status: string | null, seq: number | null): boolean {
    if (rowid >= ROWIDS_MAX) return false;
    if (rowid >= this.status.length) this.grow(Math.ceil((rowid + 1) * 1.25));
    if (this.status[rowid] === 255) this.odd--;
    if (userId === null || status === null || seq === null) {
      this.status[rowid] = 0;
      return true;
    }
    let u = this.userIndex.get(userId);
    if (u === undefined) {
      u = this.users.length;
      this.users.push(userId);
      this.userIndex.set(userId, u);
    }
    const code = RESPONSE_STATUSES.indexOf(status as ResponseStatus) + 1;
    this.seq[rowid] = seq;
    this.user[rowid] = u;
    this.status[rowid] = code === 0 ? 255 : code;
    if (code === 0) this.odd++;
    return true;
  }

  private grow(length: number): void {
    const seq = new Uint32Array(length);
    seq.set(this.seq);
    const user = new Uint32Array(length);
    user.set(this.user);
    const status = new Uint8Array(length);
    status.set(this.status);
    Object.assign(this, { seq, user, status });
  }

  /** The TEMP log and its triggers (this connection's writes only: other connections' leave the versions to tell). */
  private logChanges(): void {
    const raw = this.raw;
    const logging = `WHEN (SELECT coalesce(max(id), 0) FROM temp.tessera_response_log) < ${Math.floor(this.logMax)}`;
    raw.exec(`
      CREATE TEMP TABLE IF NOT EXISTS tessera_response_log (id INTEGER PRIMARY KEY, rid INTEGER NOT NULL);
      CREATE TEMP TABLE IF NOT EXISTS tessera_records_deleted (deleted INTEGER NOT NULL);
      INSERT INTO temp.tessera_records_deleted (deleted) SELECT 0 WHERE NOT EXISTS (SELECT 1 FROM temp.tessera_records_deleted);
      CREATE TEMP TRIGGER IF NOT EXISTS tessera_response_log_insert AFTER INSERT ON main.responses ${logging}
        BEGIN INSERT INTO temp.tessera_response_log (rid) VALUES (new.rowid); END;
      CREATE TEMP TRIGGER IF NOT EXISTS tessera_response_log_update AFTER UPDATE ON main.responses ${logging}
        BEGIN INSERT INTO temp.tessera_response_log (rid) SELECT new.rowid UNION SELECT old.rowid; END;
      CREATE TEMP TRIGGER IF NOT EXISTS tessera_response_log_delete AFTER DELETE ON main.responses ${logging}
        BEGIN INSERT INTO temp.tessera_response_log (rid) VALUES (old.rowid); END;
      CREATE TEMP TRIGGER IF NOT EXISTS tessera_records_deleted_flag AFTER DELETE ON main.records
        BEGIN UPDATE temp.tessera_records_deleted SET deleted = 1; END;
    `);
  }
}

/** The response tallies kept for this connection. */
export const responseTalliesOf = perConnection((raw) => new ResponseTallies(raw));
