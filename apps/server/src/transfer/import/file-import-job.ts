import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { HttpError } from "../../http/errors.js";
import { PermanentJobError, type JobContext } from "../../jobs/port.js";
import { loadDatasetSchema } from "../../records/dataset-schema.js";
import { ingestRecords } from "../../records/ingest.js";
import { attributableUsernames } from "../../records/response-attribution.js";
import type { RecordItem } from "../../records/input.js";
import type { EventSink } from "../../webhooks/events.js";
import type { UploadConfig } from "./config.js";
import { FileFormatError, readRows, type ReadProgress } from "./readers.js";
import { RowError, rowToRecord } from "./row-to-record.js";
import type { RowFailure, UploadState, UploadStore } from "./upload-store.js";

export const FILE_IMPORT_JOB = "file_import";
export interface FileImportPayload {
  upload_id: string;
}
/** Rows stored per transaction: a batch is stored whole or not at all. */
export const IMPORT_BATCH = 500;

export interface FileImportDeps {
  db: Kysely<DB>;
  uploads: UploadStore;
  config: UploadConfig;
  events?: Pick<EventSink, "emit">;
  batch?: number;
}

const detailOf = (error: HttpError): string => {
  const body = error.body as { detail?: unknown } | null;
  return typeof body?.detail === "string" ? body.detail : error.message;
};

/**
 * The file import job: reads the uploaded file row by row (from this server's disk; on PostgreSQL
 * first copied there from the database, so any replica can run it), maps each row to a record and
 * upserts them by external id in batches of `IMPORT_BATCH`, each in one transaction. A batch with a
 * row that does not fit its mapping (or that the records module refuses) stores nothing, and its
 * rows are listed in the upload's failures. After each batch the upload's state records how far it
 * got, so a job interrupted by a restart goes on from there; a cancel request stops it between
 * batches. A file that cannot be read further fails the import with the row (and column) named; the
 * batches before it stay stored. A settled import (finished, failed, cancelled) removes the bytes.
 */
export async function runFileImport(
  deps: FileImportDeps,
  payload: FileImportPayload,
  context: Pick<JobContext, "signal">,
): Promise<unknown> {
  const batchSize = deps.batch ?? IMPORT_BATCH;
  const state = await deps.uploads.get(payload.upload_id);
  if (!state || !state.dataset_id || !state.mapping) throw new PermanentJobError(`Upload \`${payload.upload_id}\` not found`);
  if (state.status === "cancelled" || state.status === "finished" || state.status === "failed") {
    await deps.uploads.discardBytes(state.id);
    return summary(state);
  }
  const dataset = await deps.db.selectFrom("datasets").selectAll().where("id", "=", state.dataset_id).executeTakeFirst();
  if (!dataset) return fail(deps, state, `Dataset with id \`${state.dataset_id}\` not found`);
  const schema = await loadDatasetSchema(deps.db, dataset);
  state.status = "importing";
  await deps.uploads.save(state);
  const path = await deps.uploads.readablePath(state);
  if (path === null) return fail(deps, state, "The uploaded file is gone; upload it again");

  // Whose responses the rows may carry: the rule of the bulk routes, for the user who started the import (as they are now).
  const uploader = (await deps.db.selectFrom("users").select("role").where("id", "=", state.user_id).executeTakeFirst()) ?? null;
  const usernames = await attributableUsernames(deps.db, uploader, dataset);
  const progress: ReadProgress = { bytes: state.bytes_done, totalRows: state.rows_total };
  let batch: Array<{ row: number; item: RecordItem | null; error: RowError | null }> = [];
  let externalIds = new Set<string>();

  const flush = async () => {
    if (batch.length === 0) return;
    const first = batch[0]!.row;
    const last = batch[batch.length - 1]!.row;
    const bad = batch.filter((b) => b.error !== null);
    let failures: RowFailure[] = [];
    if (bad.length > 0) {
      failures = batch.map((b) =>
        b.error
          ? { row: b.row, column: b.error.column, message: b.error.message }
          : { row: b.row, column: null, message: `Not stored: rows ${first}-${last} were imported together and row ${bad[0]!.row} failed` },
      );
    } else {
      try {
        const result = await ingestRecords(
          deps.db,
          schema.dataset.id,
          batch.map((b) => b.item!),
          { mode: "upsert", raiseOnError: true },
        );
        if (result.createdIds.length) deps.events?.emit("record.created", { recordIds: result.createdIds });
        if (result.updatedIds.length) deps.events?.emit("record.updated", { recordIds: result.updatedIds });
        state.rows_stored += batch.length;
      } catch (error) {
        if (!(error instanceof HttpError) || error.status >= 500) throw error;
        const detail = detailOf(error);
        const position = /position (\d+)/.exec(detail);
        const failed = position ? (batch[Number(position[1])]?.row ?? first) : first;
        failures = batch.map((b) =>
          b.row === failed
            ? { row: b.row, column: null, message: `Row ${b.row}: ${detail.replace(/^Record at position \d+ is not valid because /, "")}` }
            : { row: b.row, column: null, message: `Not stored: rows ${first}-${last} were imported together and row ${failed} failed` },
        );
        if (!position && error.status !== 422) return "stop";
      }
    }
    await deps.uploads.appendFailures(state.id, failures);
    state.rows_failed += failures.length;
    state.rows_done = last;
    state.bytes_done = progress.bytes;
    state.rows_total = progress.totalRows;
    batch = [];
    externalIds = new Set();
    const current = await deps.uploads.get(state.id);
    state.cancel_requested = current?.cancel_requested ?? false;
    await deps.uploads.save(state);
    return state.cancel_requested ? "cancel" : "go";
  };

  try {
    for await (const { row, values } of readRows(path, state.format, deps.config, state.rows_done + 1, progress)) {
      if (context.signal.aborted) throw new Error("The import was interrupted; it goes on when the server is back");
      let entry: (typeof batch)[number];
      try {
        const item = rowToRecord(schema, state.format, state.mapping, row, values, (name) => usernames.get(name) ?? null, state.user_id);
        entry = { row, item, error: null };
      } catch (error) {
        if (!(error instanceof RowError)) throw error;
        entry = { row, item: null, error };
      }
      const ext = entry.item?.external_id;
      if (typeof ext === "string" && externalIds.has(ext)) {
        const outcome = await flush();
        if (outcome !== "go") return outcome === "cancel" ? cancelled(deps, state) : fail(deps, state, "The dataset refused the records");
      }
      if (typeof ext === "string") externalIds.add(ext);
      batch.push(entry);
      if (batch.length >= batchSize) {
        const outcome = await flush();
        if (outcome !== "go") return outcome === "cancel" ? cancelled(deps, state) : fail(deps, state, "The dataset refused the records");
      }
    }
    await flush();
  } catch (error) {
    if (error instanceof FileFormatError) {
      await flush().catch(() => undefined);
      return fail(deps, state, error.message);
    }
    throw error;
  }
  state.status = "finished";
  await settle(deps, state);
  return summary(state);
}

/** Removes a settled import's bytes, then saves its state (which stays readable with its failures): once settled, the bytes are gone. */
async function settle(deps: FileImportDeps, state: UploadState): Promise<void> {
  await deps.uploads.discardBytes(state.id);
  await deps.uploads.save(state);
}

/** Usernames to ids, for the response columns (users are few next to records: one query per import). */
function summary(state: UploadState) {
  return { upload_id: state.id, status: state.status, rows_stored: state.rows_stored, rows_failed: state.rows_failed, error: state.error };
}

async function fail(deps: FileImportDeps, state: UploadState, message: string) {
  state.status = "failed";
  state.error = message;
  await settle(deps, state);
  return summary(state);
}

async function cancelled(deps: FileImportDeps, state: UploadState) {
  state.status = "cancelled";
  await settle(deps, state);
  return summary(state);
}
