/** ISO-8601 timestamp without timezone, like Python's datetime.isoformat() on a naive UTC datetime. */
export function now(): string {
  return new Date().toISOString().replace("Z", "");
}
