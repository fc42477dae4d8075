/**
 * Reservations of the annotation queue (issue 29): how long a record handed to an annotator stays
 * theirs without activity. The server refuses other values (422); the settings screen says why first.
 */
export const RESERVATION_TIMEOUT_DEFAULT_SECONDS = 300;
export const RESERVATION_TIMEOUT_MIN_SECONDS = 1;
export const RESERVATION_TIMEOUT_MAX_SECONDS = 86_400;

/** Why `seconds` cannot be a dataset's reservation time-out, or null when it can. */
export function reservationTimeoutProblem(seconds: number): "notWhole" | "tooShort" | "tooLong" | null {
  if (!Number.isInteger(seconds)) return "notWhole";
  if (seconds < RESERVATION_TIMEOUT_MIN_SECONDS) return "tooShort";
  if (seconds > RESERVATION_TIMEOUT_MAX_SECONDS) return "tooLong";
  return null;
}
