import type { RecordUploadRepository, UploadProgress } from "./ports.js";

/** How far an import is (rows stored and failed, share of the file read, the error of a failed file). */
export class GetUploadProgressUseCase {
  constructor(private readonly uploads: RecordUploadRepository) {}
  execute(uploadId: string): Promise<UploadProgress> {
    return this.uploads.progress(uploadId);
  }
}
