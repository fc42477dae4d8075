import { randomUUID } from "node:crypto";
import { createWriteStream } from "node:fs";
import { appendFile, mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Transform } from "node:stream";
import type { UploadFormat } from "./readers.js";
import type { UploadMapping } from "@tessera/domain";

export type UploadStatus = "uploaded" | "queued" | "importing" | "finished" | "failed" | "cancelled";

/** The mapping of file columns onto a dataset's settings (docs/api.md "Record uploads"): the domain's shape, shared with the web app. */
export type { MappingPair, UploadMapping } from "@tessera/domain";

/** An upload's state, kept beside its file (uploads live on this server's disk, like the file). */
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

/** Upload files and their state under `<dataDir>/uploads/<id>/`. */
export class UploadStore {
  constructor(private readonly root: string) {}

  dir(id: string): string {
    return join(this.root, id);
  }
  dataPath(id: string): string {
    return join(this.dir(id), "data");
  }
  failuresPath(id: string): string {
    return join(this.dir(id), "failures.jsonl");
  }

  /** Streams `body` to disk (never in memory), refusing it past `maxBytes` (the partial file is removed). */
  async receive(body: Readable, meta: { userId: string; filename: string; format: UploadFormat }, maxBytes: number): Promise<UploadState> {
    const id = randomUUID();
    await mkdir(this.dir(id), { recursive: true });
    let size = 0;
    const limit = new Transform({
      transform(chunk: Buffer, _encoding, callback) {
        size += chunk.length;
        if (size > maxBytes) callback(new UploadTooLarge(maxBytes));
        else callback(null, chunk);
      },
    });
    try {
      await pipeline(body, limit, createWriteStream(this.dataPath(id)));
    } catch (error) {
      await rm(this.dir(id), { recursive: true, force: true });
      throw error;
    }
    const now = new Date().toISOString();
    const state: UploadState = {
      id,
      user_id: meta.userId,
      filename: meta.filename,
      format: meta.format,
      size,
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
    await this.save(state);
    return state;
  }

  async get(id: string): Promise<UploadState | null> {
    try {
      return JSON.parse(await readFile(join(this.dir(id), "state.json"), "utf8")) as UploadState;
    } catch {
      return null;
    }
  }

  /** Writes the state atomically (a crash leaves the previous state, never half of one). */
  async save(state: UploadState): Promise<void> {
    state.updated_at = new Date().toISOString();
    const path = join(this.dir(state.id), "state.json");
    await writeFile(`${path}.tmp`, JSON.stringify(state));
    await rename(`${path}.tmp`, path);
  }

  async update(id: string, change: (state: UploadState) => void): Promise<UploadState | null> {
    const state = await this.get(id);
    if (!state) return null;
    change(state);
    await this.save(state);
    return state;
  }

  async appendFailures(id: string, failures: RowFailure[]): Promise<void> {
    if (failures.length > 0) await appendFile(this.failuresPath(id), failures.map((f) => `${JSON.stringify(f)}\n`).join(""));
  }

  async remove(id: string): Promise<void> {
    await rm(this.dir(id), { recursive: true, force: true });
  }
}

/** A row that was not stored, and why (the row is 1-based over the file's data rows). */
export interface RowFailure {
  row: number;
  column: string | null;
  message: string;
}
