import type { KyInstance } from "ky";
import {
  ErrorCode,
  type AgentRepository,
  type BulkResponseItem,
  type BulkResponseResult,
  type QuestionAgents,
  type RecordProps,
  type RecordRepository,
  type RecordResponse,
  type RecordSearchRequest,
  type RecordSearchResult,
  type ResponsePayload,
  type ResponseRepository,
} from "@tessera/domain";
import { call, seg } from "../http/call.js";
import { toRecord, toResponse, toWireValues, type BackendRecord, type BackendResponse } from "../mappers/wire.js";
import { toQueueReservations, type BackendReservations } from "./reservation-repository.js";

export class HttpRecordRepository implements RecordRepository, AgentRepository {
  constructor(private readonly http: KyInstance) {}

  search(request: RecordSearchRequest): Promise<RecordSearchResult> {
    return call(ErrorCode.ERROR_FETCHING_RECORDS, async () => {
      const searchParams = new URLSearchParams([
        ["include", "responses"],
        ["include", "suggestions"],
        ["offset", String(request.offset)],
        ["limit", String(request.limit)],
      ]);
      if (request.reserve) searchParams.set("reserve", "true");
      const result = await this.http
        .post(`v1/me/datasets/${seg(request.datasetId)}/records/search`, { searchParams, json: request.body })
        .json<{
          items: Array<{ record: BackendRecord; query_score: number | null }>;
          total: number;
          total_is_lower_bound?: boolean;
          reservations?: BackendReservations;
        }>();
      const records = result.items.map((i) => toRecord(i.record, i.query_score ?? null));
      return {
        records,
        total: result.total,
        ...(result.total_is_lower_bound === true ? { totalIsLowerBound: true } : {}),
        ...(request.reserve ? { reservations: toQueueReservations(result.reservations) } : {}),
      };
    });
  }

  getById(recordId: string): Promise<RecordProps> {
    return call(ErrorCode.ERROR_FETCHING_RECORD_BY_ID, async () =>
      toRecord(await this.http.get(`v1/records/${seg(recordId)}`).json<BackendRecord>()),
    );
  }

  getAgents(datasetId: string): Promise<QuestionAgents[]> {
    return call(ErrorCode.GET_AGENTS, async () => {
      const result = await this.http
        .get(`v1/datasets/${seg(datasetId)}/records/search/suggestions/options`)
        .json<{ items: Array<{ question: { id: string; name: string }; agents: string[] }> }>();
      return result.items.map((i) => ({ questionId: i.question.id, questionName: i.question.name, agents: i.agents }));
    });
  }
}

export class HttpResponseRepository implements ResponseRepository {
  constructor(private readonly http: KyInstance) {}

  create(recordId: string, payload: ResponsePayload): Promise<RecordResponse> {
    return call(ErrorCode.ERROR_CREATING_RECORD_RESPONSE, async () =>
      toResponse(
        await this.http
          .post(`v1/records/${seg(recordId)}/responses`, { json: { status: payload.status, values: toWireValues(payload.values) } })
          .json<BackendResponse>(),
      ),
    );
  }

  update(responseId: string, payload: ResponsePayload): Promise<RecordResponse> {
    return call(ErrorCode.ERROR_UPDATING_RECORD_RESPONSE, async () =>
      toResponse(
        await this.http
          .put(`v1/responses/${seg(responseId)}`, { json: { status: payload.status, values: toWireValues(payload.values) } })
          .json<BackendResponse>(),
      ),
    );
  }

  delete(responseId: string): Promise<void> {
    return call(ErrorCode.ERROR_DELETING_RECORD_RESPONSE, async () => {
      await this.http.delete(`v1/responses/${seg(responseId)}`);
    });
  }

  bulk(items: BulkResponseItem[]): Promise<BulkResponseResult[]> {
    return call(ErrorCode.ERROR_CREATING_RECORD_RESPONSE_BULK, async () => {
      const body = { items: items.map((i) => ({ record_id: i.recordId, status: i.status, values: toWireValues(i.values) })) };
      const result = await this.http
        .post("v1/me/responses/bulk", { json: body })
        .json<{ items: Array<{ item: BackendResponse | null; error: { detail: string } | null }> }>();
      return result.items.map((entry, index): BulkResponseResult => {
        const recordId = entry.item?.record_id ?? items[index]?.recordId ?? "";
        return entry.item
          ? { recordId, success: true, response: toResponse(entry.item) }
          : { recordId, success: false, error: entry.error?.detail ?? "" };
      });
    });
  }
}
