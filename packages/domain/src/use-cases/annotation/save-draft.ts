import type { RecordResponse } from "../../entities/answer.js";
import type { DatasetRecord } from "../../entities/record.js";
import type { ResponseRepository } from "../../ports/record-repository.js";
import { saveResponse } from "./save-response.js";

/** Saves the answers as a draft (partial rankings allowed). */
export class SaveDraftUseCase {
  constructor(private readonly responses: ResponseRepository) {}
  execute(record: DatasetRecord): Promise<RecordResponse> {
    return saveResponse(this.responses, record, "draft");
  }
}
