import type { RecordResponse } from "../../entities/answer.js";
import type { DatasetRecord } from "../../entities/record.js";
import type { ResponseRepository } from "../../ports/record-repository.js";
import { saveResponse } from "./save-response.js";

/** Discards the record, keeping whatever valid or partial answers it has. */
export class DiscardRecordUseCase {
  constructor(private readonly responses: ResponseRepository) {}
  execute(record: DatasetRecord): Promise<RecordResponse> {
    return saveResponse(this.responses, record, "discarded");
  }
}
