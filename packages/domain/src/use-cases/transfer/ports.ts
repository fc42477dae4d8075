import type { RecordSearchBody } from "../../criteria/search-body.js";

/** Ports of record downloads and uploads (bound by the composition root in @tessera/infrastructure). */
export const TRANSFER_TOKENS = {
  RecordExportRepository: Symbol.for("tessera.RecordExportRepository"),
  RecordUploadRepository: Symbol.for("tessera.RecordUploadRepository"),
} as const;

export const EXPORT_FORMATS = ["jsonl", "csv", "parquet"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

/** A file the user received: its name and size in bytes. */
export interface DownloadedFile {
  filename: string;
  bytes: number;
}

export interface RecordExportRepository {
  /**
   * POST /v1/datasets/{id}/records/export?format=… with the search body (null: every record), saved
   * as a file on the user's machine; throws RepositoryError(ERROR_DOWNLOADING_RECORDS).
   */
  download(datasetId: string, format: ExportFormat, body: RecordSearchBody | null): Promise<DownloadedFile>;
}

/** A file the user picked (a browser File); the repository adapter reads it. */
export interface FileLike {
  readonly name: string;
  readonly size: number;
}

/** One column of an uploaded file: its inferred type in the Hub's features shape, and a hint for the columns of a Tessera export. */
export interface UploadColumn {
  name: string;
  feature: Record<string, unknown>;
  hint: string | null;
}
export interface UploadPreview {
  id: string;
  filename: string;
  format: string;
  size: number;
  columns: UploadColumn[];
  rows: Array<Record<string, unknown>>;
}

export interface MappingPair {
  source: string;
  target: string;
}
/** Columns onto a dataset's settings (server: POST /v1/uploads/{id}/import). */
export interface UploadMapping {
  fields: MappingPair[];
  metadata: MappingPair[];
  suggestions: MappingPair[];
  responses: MappingPair[];
  vectors: MappingPair[];
  external_id: string | null;
}

export type UploadStatus = "uploaded" | "queued" | "importing" | "finished" | "failed" | "cancelled";
export interface UploadProgress {
  id: string;
  status: UploadStatus;
  rowsDone: number;
  rowsStored: number;
  rowsFailed: number;
  progress: number;
  error: string | null;
}

export interface RecordUploadRepository {
  /** POST /v1/uploads?filename=…: the file streamed to the server; its preview. Throws RepositoryError(ERROR_UPLOADING_FILE) with the server's message. */
  upload(file: FileLike): Promise<UploadPreview>;
  /** POST /v1/uploads/{id}/import. */
  startImport(uploadId: string, datasetId: string, mapping: UploadMapping): Promise<UploadProgress>;
  /** GET /v1/uploads/{id}. */
  progress(uploadId: string): Promise<UploadProgress>;
  /** POST /v1/uploads/{id}/cancel. */
  cancel(uploadId: string): Promise<UploadProgress>;
  /** GET /v1/uploads/{id}/failures, saved as a CSV file. */
  downloadFailures(uploadId: string): Promise<DownloadedFile>;
}
