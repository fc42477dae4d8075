import type { FileLike, RecordUploadRepository, UploadPreview } from "./ports.js";

/** Sends a picked file to the server and returns its preview (typed columns, first rows). */
export class UploadFileUseCase {
  constructor(private readonly uploads: RecordUploadRepository) {}
  execute(file: FileLike): Promise<UploadPreview> {
    return this.uploads.upload(file);
  }
}
