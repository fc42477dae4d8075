import { BUSINESS_CODE_MESSAGES, HTTP_STATUS_MESSAGES, type NotificationPort } from "@tessera/domain";

/** What the handler reads from a failed response: the status, data.code and data.detail. */
export interface FailedRequest {
  status: number;
  data: unknown;
}

/**
 * The failed-request handler of spec section 8: clear the notifications, then a danger toast with
 * the status message (401/404/429/500), then the business-code message, or else a string detail.
 * The caller re-throws the error.
 */
export function handleFailedRequest(failure: FailedRequest, notifications: NotificationPort): void {
  notifications.clear();
  const status = HTTP_STATUS_MESSAGES[failure.status];
  if (status) notifications.notify({ message: status.text, key: status.key, type: "danger" });
  const data = (failure.data && typeof failure.data === "object" ? failure.data : {}) as { code?: unknown; detail?: unknown };
  const business = typeof data.code === "string" ? BUSINESS_CODE_MESSAGES[data.code] : undefined;
  if (business) notifications.notify({ message: business.text, key: business.key, type: "danger" });
  else if (typeof data.detail === "string") notifications.notify({ message: data.detail, type: "danger" });
}

/** Normalizes any error to a message and a status code (default 500). */
export function normalizeError(error: unknown): { message: string; statusCode: number } {
  const e = (error ?? {}) as { message?: unknown; response?: { status?: unknown }; status?: unknown; statusCode?: unknown };
  const statusCode = [e.statusCode, e.status, e.response?.status].find((s): s is number => typeof s === "number") ?? 500;
  return { message: typeof e.message === "string" ? e.message : String(error), statusCode };
}
