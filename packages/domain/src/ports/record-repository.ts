import type { RecordProps } from "../entities/record.js";
import type { AnswerValues, RecordResponse, ResponseStatus } from "../entities/answer.js";
import type { RecordSearchRequest } from "../criteria/search-body.js";
import type { QueueReservations } from "../use-cases/reservations/ports.js";

export interface RecordSearchResult {
  records: RecordProps[];
  total: number;
  /** More records match than `total` (the server counts a text search's matches only up to a bound). */
  totalIsLowerBound?: boolean;
  /** Set when the search reserved its records (`reserve`). */
  reservations?: QueueReservations | null;
}

export interface RecordRepository {
  /** POST /v1/me/datasets/{id}/records/search?include=responses&include=suggestions&offset&limit; throws ERROR_FETCHING_RECORDS. */
  search(request: RecordSearchRequest): Promise<RecordSearchResult>;
  /** GET /v1/records/{id}; throws ERROR_FETCHING_RECORD_BY_ID. */
  getById(recordId: string): Promise<RecordProps>;
}

export interface QuestionAgents {
  questionId: string;
  questionName: string;
  agents: string[];
}

export interface AgentRepository {
  /** GET /v1/datasets/{id}/records/search/suggestions/options; throws GET_AGENTS. */
  getAgents(datasetId: string): Promise<QuestionAgents[]>;
}

export interface ResponsePayload {
  status: ResponseStatus;
  values: AnswerValues;
}
export interface BulkResponseItem extends ResponsePayload {
  recordId: string;
}
export type BulkResponseResult =
  { recordId: string; success: true; response: RecordResponse } | { recordId: string; success: false; error: string };

export interface ResponseRepository {
  /** POST /v1/records/{id}/responses; throws ERROR_CREATING_RECORD_RESPONSE. */
  create(recordId: string, payload: ResponsePayload): Promise<RecordResponse>;
  /** PUT /v1/responses/{id}; throws ERROR_UPDATING_RECORD_RESPONSE. */
  update(responseId: string, payload: ResponsePayload): Promise<RecordResponse>;
  /** DELETE /v1/responses/{id}; throws ERROR_DELETING_RECORD_RESPONSE. */
  delete(responseId: string): Promise<void>;
  /** POST /v1/me/responses/bulk; throws ERROR_CREATING_RECORD_RESPONSE_BULK. */
  bulk(items: BulkResponseItem[]): Promise<BulkResponseResult[]>;
}
