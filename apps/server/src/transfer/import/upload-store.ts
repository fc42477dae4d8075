import { randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, readdir, rename, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import { Readable, Transform } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { Kysely, Selectable } from "kysely";
import type { DB, UploadsTable } from "../../db/schema.js";
import { isPostgres } from "../../db/dialect.js";
import type { UploadFormat } from "./readers.js";
import type { UploadMapping } from "@tessera/domain";

export type UploadStatus = "uploaded" | "queued" | "importing" | "finished" | "failed" | "cancelled";
const SETTLED: readonly UploadStatus[] = ["finished", "failed", "cancelled"];

/** The mapping of file columns onto a dataset's settings (docs/api.md "Record uploads"): the domain's shape, shared with the web app. */
export type { MappingPair, UploadMapping } from "@tessera/domain";

/** An upload's state (table `uploads`: every replica on one database reads the same). */
export interface UploadState {
  id: string;
  user_id: string;
  filename: string;
  format: UploadFormat;
  size: number;
  status: UploadStatus;
  dataset_id: string | null;
  mapping: UploadMapping | null;
  /** Rows read and settled (stored or failed) in committed batches: a resumed import starts after them. */
  rows_done: number;
  rows_stored: number;
  rows_failed: number;
  /** Total rows when known (Parquet), else null; `bytes_done` / `size` tells the progress of text files. */
  rows_total: number | null;
  bytes_done: number;
  cancel_requested: boolean;
  error: string | null;
  inserted_at: string;
  updated_at: string;
}

export class UploadTooLarge extends Error {
  constructor(readonly limit: number) {
    super(`The file is larger than the limit of ${limit} bytes`);
  }
}

/** A row that was not stored, and why (the row is 1-based over the file's data rows). */
export interface RowFailure {
  row: number;
  column: string | null;
  message: string;
}

/** Bytes per `upload_chunks` row (PostgreSQL). */
export const CHUNK_BYTES = 1024 * 1024;

const fromRow = (row: Selectable<UploadsTable>): UploadState => ({
  ...row,
  format: row.format as UploadFormat,
  status: row.status as UploadStatus,
  mapping: row.mapping === null ? null : (JSON.parse(row.mapping) as UploadMapping),
  size: Number(row.size),
  rows_done: Number(row.rows_done),
  rows_stored: Number(row.rows_stored),
  rows_failed: Number(row.rows_failed),
  rows_total: row.rows_total === null ? null : Number(row.rows_total),
  bytes_done: Number(row.bytes_done),
  cancel_requested: Boolean(row.cancel_requested),
});

/**
 * Uploads (docs/api.md "Record uploads"): the state and the failed rows in the database (tables
 * `uploads`, `upload_failures`), the bytes where every server that may import them can read them.
 * On the embedded store (one server) that is `<dataDir>/uploads/<id>/data`. On PostgreSQL, where
 * several replicas share the database but no disk, the receiving replica stores the bytes in
 * `upload_chunks` once its preview is made and drops its copy; the replica that runs the import
 * copies them back to its own `<dataDir>/uploads/<id>/data` (`readablePath`), streamed, and reads
 * that. The bytes are deleted when the import ends (finished, failed, cancelled) and, for uploads
 * never imported or imports that stopped, after `expiryMs` without a change (`sweep`).
 */
export class UploadStore {
  private readonly bytesInDatabase: boolean;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly root: string,
  ) {
    this.bytesInDatabase = isPostgres(db);
  }

  dir(id: string): string {
    return join(this.root, id);
  }
  /** This server's copy of the bytes (the received file; on PostgreSQL only until `keep`, or a job's copy). */
  dataPath(id: string): string {
    return join(this.dir(id), "data");
  }

  /**
   * Streams `body` to this server's disk (never in memory), refusing it past `maxBytes` (the partial
   * file and the upload are removed). The upload is recorded first, so that a sweep meanwhile keeps its file.
   */
  async receive(body: Readable, meta: { userId: string; filename: string; format: UploadFormat }, maxBytes: number): Promise<UploadState> {
    const now = new Date().toISOString();
    const state: UploadState = {
      id: randomUUID(),
      user_id: meta.userId,
      filename: meta.filename,
      format: meta.format,
      size: 0,
      status: "uploaded",
      dataset_id: null,
      mapping: null,
      rows_done: 0,
      rows_stored: 0,
      rows_failed: 0,
      rows_total: null,
      bytes_done: 0,
      cancel_requested: false,
      error: null,
      inserted_at: now,
      updated_at: now,
    };
    await this.db
      .insertInto("uploads")
      .values({ ...state, mapping: null, cancel_requested: 0 })
      .execute();
    await mkdir(this.dir(state.id), { recursive: true });
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        state.size += chunk.length;
        if (state.size > maxBytes) callback(new UploadTooLarge(maxBytes));
        else callback(null, chunk);
      },
    });
    try {
      await pipeline(body, limit, createWriteStream(this.dataPath(state.id)));
    } catch (error) {
      await this.remove(state.id);
      throw error;
    }
    await this.db.updateTable("uploads").set({ size: state.size }).where("id", "=", state.id).execute();
    return state;
  }

  /**
   * Keeps a received file for its import: on PostgreSQL its bytes go into `upload_chunks` (read a
   * chunk at a time) and this server's copy is removed, so that any replica can run the import.
   */
  async keep(id: string): Promise<void> {
    if (!this.bytesInDatabase) return;
    let seq = 0;
    for await (const chunk of createReadStream(this.dataPath(id), { highWaterMark: CHUNK_BYTES }) as AsyncIterable<Buffer>) {
      // without the PostgreSQL vector plugin, which takes every binary parameter for a float32 vector
      await this.db.withoutPlugins().insertInto("upload_chunks").values({ upload_id: id, seq, data: chunk }).execute();
      seq += 1;
    }
    await rm(this.dir(id), { recursive: true, force: true });
  }

  /**
   * A path to the upload's bytes on this server's disk, for its import. On PostgreSQL a copy made
   * earlier by this server (a resumed import) is used when complete; otherwise the chunks are
   * streamed from the database to disk first. Null when the bytes are gone.
   */
  async readablePath(state: UploadState): Promise<string | null> {
    const path = this.dataPath(state.id);
    const size = await stat(path).then(
      (s) => s.size,
      () => null,
    );
    if (size === state.size) return path;
    if (!this.bytesInDatabase) return null;
    const first = await this.db
      .selectFrom("upload_chunks")
      .select("seq")
      .where("upload_id", "=", state.id)
      .where("seq", "=", 0)
      .executeTakeFirst();
    if (!first && state.size > 0) return null;
    await mkdir(this.dir(state.id), { recursive: true });
    const db = this.db;
    async function* chunks() {
      for (let seq = 0; ; seq++) {
        const row = await db
          .selectFrom("upload_chunks")
          .select("data")
          .where("upload_id", "=", state.id)
          .where("seq", "=", seq)
          .executeTakeFirst();
        if (!row) return;
        yield row.data;
      }
    }
    await pipeline(Readable.from(chunks()), createWriteStream(`${path}.part`));
    await rename(`${path}.part`, path);
    return path;
  }

  async get(id: string): Promise<UploadState | null> {
    const row = await this.db.selectFrom("uploads").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? fromRow(row) : null;
  }

  /**
   * Writes the state a job or route changed (status, mapping, progress, error); never
   * `cancel_requested`, which only `requestCancel` sets, so that a cancel from another request or
   * replica is not overwritten by the job's progress.
   */
  async save(state: UploadState): Promise<void> {
    state.updated_at = new Date().toISOString();
    await this.db
      .updateTable("uploads")
      .set({
        status: state.status,
        dataset_id: state.dataset_id,
        mapping: state.mapping === null ? null : JSON.stringify(state.mapping),
        rows_done: state.rows_done,
        rows_stored: state.rows_stored,
        rows_failed: state.rows_failed,
        rows_total: state.rows_total,
        bytes_done: state.bytes_done,
        error: state.error,
        updated_at: state.updated_at,
      })
      .where("id", "=", state.id)
      .execute();
  }

  async update(id: string, change: (state: UploadState) => void): Promise<UploadState | null> {
    const state = await this.get(id);
    if (!state) return null;
    change(state);
    await this.save(state);
    return state;
  }

  /**
   * Asks a running import to stop after its current batch; an upload not imported yet (or still
   * queued) is cancelled at once and its bytes removed. Returns the state after the change.
   */
  async requestCancel(id: string): Promise<UploadState | null> {
    const updated_at = new Date().toISOString();
    await this.db
      .updateTable("uploads")
      .set({ cancel_requested: 1, updated_at })
      .where("id", "=", id)
      .where("status", "in", ["queued", "importing"])
      .execute();
    const cancelled = await this.db
      .updateTable("uploads")
      .set({ status: "cancelled", updated_at })
      .where("id", "=", id)
      .where("status", "in", ["queued", "uploaded"])
      .executeTakeFirst();
    if (Number(cancelled.numUpdatedRows) > 0) await this.discardBytes(id);
    return this.get(id);
  }

  async appendFailures(id: string, failures: RowFailure[]): Promise<void> {
    for (let i = 0; i < failures.length; i += 500)
      await this.db
        .insertInto("upload_failures")
        .values(failures.slice(i, i + 500).map((f) => ({ upload_id: id, row_no: f.row, column_name: f.column, message: f.message })))
        .execute();
  }

  /** The rows not stored, in row order, a page at a time. */
  async *failures(id: string): AsyncGenerator<RowFailure> {
    let after = 0;
    for (;;) {
      const rows = await this.db
        .selectFrom("upload_failures")
        .select(["row_no", "column_name", "message"])
        .where("upload_id", "=", id)
        .where("row_no", ">", after)
        .orderBy("row_no")
        .limit(1000)
        .execute();
      for (const r of rows) yield { row: Number(r.row_no), column: r.column_name, message: r.message };
      if (rows.length < 1000) return;
      after = Number(rows[rows.length - 1]!.row_no);
    }
  }

  /** Removes the upload's bytes (database chunks and this server's copy); its state and failures stay. */
  async discardBytes(id: string): Promise<void> {
    if (this.bytesInDatabase) await this.db.deleteFrom("upload_chunks").where("upload_id", "=", id).execute();
    await rm(this.dir(id), { recursive: true, force: true });
  }

  /** Removes the upload entirely (state, failures, bytes). */
  async remove(id: string): Promise<void> {
    await this.db.deleteFrom("uploads").where("id", "=", id).execute();
    await this.discardBytes(id);
  }

  /**
   * Cleans up after abandoned uploads (run at start and periodically by every server; idempotent):
   * an upload never imported and unchanged for `expiryMs` is removed; an import unchanged that long
   * (its job died for good: a running import saves its progress after every batch) is marked failed
   * and its bytes removed; the bytes of settled imports and this server's copies of uploads it no
   * longer needs (e.g. a job's copy on a replica that crashed) are removed. Returns what it did.
   */
  async sweep(now: Date, expiryMs: number): Promise<{ removed: number; stopped: number; discarded: number }> {
    const before = new Date(now.getTime() - expiryMs).toISOString();
    const abandoned = await this.db
      .selectFrom("uploads")
      .select("id")
      .where("status", "=", "uploaded")
      .where("updated_at", "<", before)
      .execute();
    for (const { id } of abandoned) await this.remove(id);
    const stalled = await this.db
      .selectFrom("uploads")
      .select("id")
      .where("status", "in", ["queued", "importing"])
      .where("updated_at", "<", before)
      .execute();
    for (const { id } of stalled) {
      await this.db
        .updateTable("uploads")
        .set({ status: "failed", error: "The import stopped and did not resume; upload the file again", updated_at: now.toISOString() })
        .where("id", "=", id)
        .execute();
      await this.discardBytes(id);
    }
    let discarded = 0;
    if (this.bytesInDatabase) {
      const settled = await this.db
        .selectFrom("upload_chunks as c")
        .innerJoin("uploads as u", "u.id", "c.upload_id")
        .select("c.upload_id")
        .distinct()
        .where("u.status", "in", [...SETTLED])
        .execute();
      for (const { upload_id } of settled) await this.discardBytes(upload_id);
      discarded += settled.length;
    }
    const local = await readdir(this.root).catch(() => [] as string[]);
    for (const name of local) {
      const state = await this.get(name);
      if (!state || SETTLED.includes(state.status)) {
        await rm(this.dir(name), { recursive: true, force: true });
        discarded += 1;
      }
    }
    return { removed: abandoned.length, stopped: stalled.length, discarded };
  }
}
