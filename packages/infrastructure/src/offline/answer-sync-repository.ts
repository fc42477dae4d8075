import type { KyInstance } from "ky";
import { ErrorCode, type AnswerSyncRepository, type RecordResponse, type ResponsePayload } from "@tessera/domain";
import { call, seg } from "../http/call.js";
import { toResponse, toWireValues, type BackendRecord, type BackendResponse } from "../mappers/wire.js";

/**
 * Sends queued answers. Uses a client without failed-request toasts: a queued answer that meets a dropped
 * connection or a 5xx simply waits (the outbox counter shows it).
 */
export class HttpAnswerSyncRepository implements AnswerSyncRepository {
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

  update(responseId: string, payload: ResponsePayload, basedOn: string): Promise<RecordResponse> {
    return call(ErrorCode.ERROR_UPDATING_RECORD_RESPONSE, async () =>
      toResponse(
        await this.http
          .put(`v1/responses/${seg(responseId)}`, {
            json: { status: payload.status, values: toWireValues(payload.values) },
            headers: { "If-Match": `"${basedOn}"` },
          })
          .json<BackendResponse>(),
      ),
    );
  }

  current(recordId: string, userId: string): Promise<RecordResponse | null> {
    return call(ErrorCode.ERROR_FETCHING_RECORD_BY_ID, async () => {
      const record = await this.http.get(`v1/records/${seg(recordId)}`).json<BackendRecord>();
      const mine = record.responses?.find((r) => r.user_id === userId);
      return mine ? toResponse(mine) : null;
    });
  }
}
