import type { RecordResponse } from "../../entities/answer.js";
import type { DatasetRecord } from "../../entities/record.js";
import { MESSAGES } from "../../messages.js";
import type { ResponseRepository } from "../../ports/record-repository.js";
import { ValidationError } from "../../errors/validation-error.js";
import { saveResponse } from "./save-response.js";

/** Submits the record's answers; needs every required question answered and optional ones valid. */
export class SubmitRecordUseCase {
  constructor(private readonly responses: ResponseRepository) {}

  async execute(record: DatasetRecord): Promise<RecordResponse> {
    if (!record.questionsAreCompletedCorrectly) throw new ValidationError(MESSAGES.incompleteRecord);
    return saveResponse(this.responses, record, "submitted");
  }
}
