import type { RecordSearchBody } from "../../criteria/search-body.js";

/** Ports of record downloads and uploads (bound by the composition root in @tessera/infrastructure). */
export const TRANSFER_TOKENS = {
  RecordExportRepository: Symbol.for("tessera.RecordExportRepository"),
} as const;

export const EXPORT_FORMATS = ["jsonl", "csv", "parquet"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A file the user received: its name and size in bytes. */
export interface DownloadedFile { filename: string; bytes: number }

export interface RecordExportRepository {
  /**
   * POST /v1/datasets/{id}/records/export?format=… with the search body (null: every record), saved
   * as a file on the user's machine; throws RepositoryError(ERROR_DOWNLOADING_RECORDS).
   */
  download(datasetId: string, format: ExportFormat, body: RecordSearchBody | null): Promise<DownloadedFile>;
}
