import type { DatasetRecord } from "../../entities/record.js";
import type { ResponseRepository } from "../../ports/record-repository.js";

/** Clear: deletes the user's response (when any), removes all answers and returns the record to pending. */
export class ClearRecordUseCase {
  constructor(private readonly responses: ResponseRepository) {}

  async execute(record: DatasetRecord): Promise<void> {
    if (record.answer) await this.responses.delete(record.answer.id);
    record.markPending();
  }
}
