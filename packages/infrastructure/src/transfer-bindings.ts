import { instanceCachingFactory, type DependencyContainer } from "tsyringe";
import type { KyInstance } from "ky";
import {
  CreateDatasetFromUploadUseCase,
  CreateDatasetUseCase,
  TOKENS,
  type Clock,
  type DatasetManagementRepository,
  type DatasetRepository,
  type FieldRepository,
  type MetadataRepository,
  type QuestionRepository,
  type WorkspaceRepository,
  CancelUploadUseCase,
  DownloadFailedRowsUseCase,
  DownloadRecordsUseCase,
  ErrorCode,
  GetUploadProgressUseCase,
  ImportUploadUseCase,
  RepositoryError,
  TRANSFER_TOKENS,
  UploadFileUseCase,
  type DownloadedFile,
  type ExportFormat,
  type FileLike,
  type RecordExportRepository,
  type RecordSearchBody,
  type RecordUploadRepository,
  type UploadMapping,
  type UploadPreview,
  type UploadProgress,
} from "@tessera/domain";
import { call, seg } from "./http/call.js";

/** Hands a received file to the browser's downloads (an object URL on a temporary link). */
export type SaveFile = (blob: Blob, filename: string) => void;

export const browserSaveFile: SaveFile = (blob, filename) => {
  const url = URL.createObjectURL(blob);
  const link = document.createElement("a");
  link.href = url;
  link.download = filename;
  link.style.display = "none";
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
};

/** The file name of a `Content-Disposition: attachment` header (the UTF-8 `filename*` first). */
export function attachmentName(header: string | null, fallback: string): string {
  if (!header) return fallback;
  const utf8 = /filename\*=UTF-8''([^;]+)/i.exec(header);
  if (utf8) {
    try {
      return decodeURIComponent(utf8[1]!.trim());
    } catch {
      /* fall through */
    }
  }
  const plain = /filename="([^"]+)"/i.exec(header);
  return plain ? plain[1]! : fallback;
}

/**
 * POST /v1/datasets/{id}/records/export: the server streams the file; the browser keeps it as a
 * Blob (Chromium spills large blobs to disk) and saves it under the server's file name.
 */
export class HttpRecordExportRepository implements RecordExportRepository {
  constructor(
    private readonly http: KyInstance,
    private readonly save: SaveFile = browserSaveFile,
  ) {}

  download(datasetId: string, format: ExportFormat, body: RecordSearchBody | null): Promise<DownloadedFile> {
    return call(ErrorCode.ERROR_DOWNLOADING_RECORDS, async () => {
      const response = await this.http.post(`v1/datasets/${seg(datasetId)}/records/export`, {
        searchParams: { format },
        json: body ?? {},
        timeout: false,
      });
      const blob = await response.blob();
      const filename = attachmentName(response.headers.get("content-disposition"), `records.${format}`);
      this.save(blob, filename);
      return { filename, bytes: blob.size };
    });
  }
}

interface WireProgress {
  id: string;
  status: UploadProgress["status"];
  rows_done: number;
  rows_stored: number;
  rows_failed: number;
  progress: number;
  error: string | null;
}
const toProgress = (w: WireProgress): UploadProgress => ({
  id: w.id,
  status: w.status,
  rowsDone: w.rows_done,
  rowsStored: w.rows_stored,
  rowsFailed: w.rows_failed,
  progress: w.progress,
  error: w.error,
});

/** An upload refused by the server, with its message (it names the row and column of a bad file). */
export class UploadRefused extends RepositoryError {
  constructor(
    readonly detail: string,
    status: number,
  ) {
    super(ErrorCode.ERROR_UPLOADING_FILE, status);
  }
}

/** POST /v1/uploads (the File as the raw body: the browser streams it), the import job's routes and the failed rows. */
export class HttpRecordUploadRepository implements RecordUploadRepository {
  constructor(
    private readonly http: KyInstance,
    private readonly save: SaveFile = browserSaveFile,
  ) {}

  async upload(file: FileLike): Promise<UploadPreview> {
    let response: Response;
    try {
      response = await this.http.post("v1/uploads", {
        searchParams: { filename: file.name },
        body: file as unknown as Blob,
        headers: { "content-type": "application/octet-stream" },
        timeout: false,
        throwHttpErrors: false,
      });
    } catch (error) {
      throw new RepositoryError(ErrorCode.ERROR_UPLOADING_FILE, undefined, { cause: error });
    }
    const body = (await response.json().catch(() => null)) as (Record<string, unknown> & { detail?: unknown }) | null;
    if (!response.ok || !body) {
      const detail = typeof body?.detail === "string" ? body.detail : "";
      throw new UploadRefused(detail, response.status);
    }
    const w = body as unknown as {
      id: string;
      filename: string;
      format: string;
      size: number;
      columns: UploadPreview["columns"];
      preview: UploadPreview["rows"];
    };
    return { id: w.id, filename: w.filename, format: w.format, size: w.size, columns: w.columns, rows: w.preview };
  }

  startImport(uploadId: string, datasetId: string, mapping: UploadMapping): Promise<UploadProgress> {
    return call(ErrorCode.ERROR_IMPORTING_FILE, async () =>
      toProgress(
        await this.http.post(`v1/uploads/${seg(uploadId)}/import`, { json: { dataset_id: datasetId, mapping } }).json<WireProgress>(),
      ),
    );
  }

  progress(uploadId: string): Promise<UploadProgress> {
    return call(ErrorCode.ERROR_IMPORTING_FILE, async () =>
      toProgress(await this.http.get(`v1/uploads/${seg(uploadId)}`, { cache: "no-store" }).json<WireProgress>()),
    );
  }

  cancel(uploadId: string): Promise<UploadProgress> {
    return call(ErrorCode.ERROR_IMPORTING_FILE, async () =>
      toProgress(await this.http.post(`v1/uploads/${seg(uploadId)}/cancel`).json<WireProgress>()),
    );
  }

  downloadFailures(uploadId: string): Promise<DownloadedFile> {
    return call(ErrorCode.ERROR_IMPORTING_FILE, async () => {
      const response = await this.http.get(`v1/uploads/${seg(uploadId)}/failures`, { timeout: false });
      const blob = await response.blob();
      const filename = attachmentName(response.headers.get("content-disposition"), "failed-rows.csv");
      this.save(blob, filename);
      return { filename, bytes: blob.size };
    });
  }
}

/** Part of the composition root: record downloads and uploads. */
export function registerTransfer(
  c: DependencyContainer,
  http: (d: DependencyContainer) => KyInstance,
  options: { saveFile?: SaveFile } = {},
): void {
  c.register(TRANSFER_TOKENS.RecordExportRepository, {
    useFactory: instanceCachingFactory((d) => new HttpRecordExportRepository(http(d), options.saveFile)),
  });
  c.register(DownloadRecordsUseCase, {
    useFactory: instanceCachingFactory(
      (d) => new DownloadRecordsUseCase(d.resolve<RecordExportRepository>(TRANSFER_TOKENS.RecordExportRepository)),
    ),
  });
  c.register(TRANSFER_TOKENS.RecordUploadRepository, {
    useFactory: instanceCachingFactory((d) => new HttpRecordUploadRepository(http(d), options.saveFile)),
  });
  const uploads = (d: DependencyContainer) => d.resolve<RecordUploadRepository>(TRANSFER_TOKENS.RecordUploadRepository);
  c.register(UploadFileUseCase, { useFactory: instanceCachingFactory((d) => new UploadFileUseCase(uploads(d))) });
  c.register(ImportUploadUseCase, { useFactory: instanceCachingFactory((d) => new ImportUploadUseCase(uploads(d))) });
  c.register(GetUploadProgressUseCase, { useFactory: instanceCachingFactory((d) => new GetUploadProgressUseCase(uploads(d))) });
  c.register(CancelUploadUseCase, { useFactory: instanceCachingFactory((d) => new CancelUploadUseCase(uploads(d))) });
  c.register(CreateDatasetFromUploadUseCase, {
    useFactory: instanceCachingFactory((d) => {
      const r = <T>(token: symbol) => d.resolve<T>(token);
      const create = (fill: ConstructorParameters<typeof CreateDatasetUseCase>[7]) =>
        new CreateDatasetUseCase(
          r<DatasetManagementRepository>(TOKENS.DatasetManagementRepository),
          r<DatasetRepository>(TOKENS.DatasetRepository),
          r<WorkspaceRepository>(TOKENS.WorkspaceRepository),
          r<FieldRepository>(TOKENS.FieldRepository),
          r<QuestionRepository>(TOKENS.QuestionRepository),
          r<MetadataRepository>(TOKENS.MetadataRepository),
          r<Clock>(TOKENS.Clock),
          fill,
        );
      return new CreateDatasetFromUploadUseCase(create, uploads(d), r<Clock>(TOKENS.Clock));
    }),
  });
  c.register(DownloadFailedRowsUseCase, { useFactory: instanceCachingFactory((d) => new DownloadFailedRowsUseCase(uploads(d))) });
}
