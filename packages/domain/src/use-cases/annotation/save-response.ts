import type { RecordResponse, ResponseStatus } from "../../entities/answer.js";
import type { DatasetRecord } from "../../entities/record.js";
import type { ResponseRepository } from "../../ports/record-repository.js";

/** Create-or-update of the user's response: creates it when the record has none, otherwise updates it. */
export async function saveResponse(responses: ResponseRepository, record: DatasetRecord, status: ResponseStatus): Promise<RecordResponse> {
  const payload = { status, values: record.valuesFor(status) };
  const response = record.answer ? await responses.update(record.answer.id, payload) : await responses.create(record.id, payload);
  record.answerSaved(response);
  return response;
}
