import { HTTPError, type KyInstance } from "ky";
import {
  ErrorCode,
  RepositoryError,
  RetryLaterError,
  type AnswerSyncRepository,
  type RecordResponse,
  type ResponsePayload,
} from "@tessera/domain";
import { call as plainCall, seg } from "../http/call.js";
import { toResponse, toWireValues, type BackendRecord, type BackendResponse } from "../mappers/wire.js";

/**
 * Sends queued answers. Uses a client without failed-request toasts: a queued answer that meets a dropped
 * connection or a 5xx simply waits (the outbox counter shows it).
 */
/** The wait a `Retry-After` header asks for (delay-seconds or an HTTP date), in ms; undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  if (!/[a-z]/i.test(value)) return undefined; // neither delay-seconds nor an HTTP date
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** `call`, with a failure that says when to come back (503, 429 with `Retry-After`) thrown as `RetryLaterError`. */
async function call<T>(code: ErrorCode, fn: () => Promise<T>): Promise<T> {
  try {
    return await plainCall(code, fn);
  } catch (error) {
    const cause = error instanceof RepositoryError ? error.cause : undefined;
    const wait = cause instanceof HTTPError ? retryAfterMs(cause.response.headers.get("retry-after")) : undefined;
    if (wait === undefined || !(error instanceof RepositoryError)) throw error;
    throw new RetryLaterError(error.code, error.status, wait, { cause });
  }
}

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
