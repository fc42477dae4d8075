import type { RecordUploadRepository, UploadProgress } from "./ports.js";

/** Stops an import between two batches (what was stored stays). */
export class CancelUploadUseCase {
  constructor(private readonly uploads: RecordUploadRepository) {}
  execute(uploadId: string): Promise<UploadProgress> {
    return this.uploads.cancel(uploadId);
  }
}
