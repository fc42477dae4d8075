import type { DownloadedFile, RecordUploadRepository } from "./ports.js";

/** Saves the rows of an import that were not stored, with the reason, as a CSV file. */
export class DownloadFailedRowsUseCase {
  constructor(private readonly uploads: RecordUploadRepository) {}
  execute(uploadId: string): Promise<DownloadedFile> {
    return this.uploads.downloadFailures(uploadId);
  }
}
