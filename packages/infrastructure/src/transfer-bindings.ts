import { instanceCachingFactory, type DependencyContainer } from "tsyringe";
import type { KyInstance } from "ky";
import {
  DownloadRecordsUseCase, ErrorCode, TRANSFER_TOKENS,
  type DownloadedFile, type ExportFormat, type RecordExportRepository, type RecordSearchBody,
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
  if (utf8) { try { return decodeURIComponent(utf8[1]!.trim()); } catch { /* fall through */ } }
  const plain = /filename="([^"]+)"/i.exec(header);
  return plain ? plain[1]! : fallback;
}

/**
 * POST /v1/datasets/{id}/records/export: the server streams the file; the browser keeps it as a
 * Blob (Chromium spills large blobs to disk) and saves it under the server's file name.
 */
export class HttpRecordExportRepository implements RecordExportRepository {
  constructor(private readonly http: KyInstance, private readonly save: SaveFile = browserSaveFile) {}

  download(datasetId: string, format: ExportFormat, body: RecordSearchBody | null): Promise<DownloadedFile> {
    return call(ErrorCode.ERROR_DOWNLOADING_RECORDS, async () => {
      const response = await this.http.post(`v1/datasets/${seg(datasetId)}/records/export`, {
        searchParams: { format }, json: body ?? {}, timeout: false,
      });
      const blob = await response.blob();
      const filename = attachmentName(response.headers.get("content-disposition"), `records.${format}`);
      this.save(blob, filename);
      return { filename, bytes: blob.size };
    });
  }
}

/** Part of the composition root: record downloads (and, later, uploads). */
export function registerTransfer(c: DependencyContainer, http: (d: DependencyContainer) => KyInstance, options: { saveFile?: SaveFile } = {}): void {
  c.register(TRANSFER_TOKENS.RecordExportRepository, { useFactory: instanceCachingFactory((d) => new HttpRecordExportRepository(http(d), options.saveFile)) });
  c.register(DownloadRecordsUseCase, { useFactory: instanceCachingFactory((d) => new DownloadRecordsUseCase(d.resolve<RecordExportRepository>(TRANSFER_TOKENS.RecordExportRepository))) });
}
