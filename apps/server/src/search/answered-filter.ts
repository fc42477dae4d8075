import type { SearchFilter } from "./search-port.js";

/**
 * A text search of answered records only (the annotation page's Submitted, Discarded and Draft views:
 * a response status filter without `pending`), issue 31. The other paths start from the text's
 * matches: at 1M records a common word's bounded total walked every match through `records` and
 * `responses` to find the caller's few answered records (seconds), and its page grew through the
 * whole ranking. Here the records come from the responses instead: the answered records (the
 * caller's, or anyone's for an admin) with those statuses, when there are at most ANSWERED_MAX, then
 * the query's filters on them, then the text's rows and scores of the passing ones only (FTS5's bm25 in
 * sqlite-text-answered.ts, ts_rank in postgres-text.ts); the total is exact and the page in the same
 * order as the other paths give. Shared by both stores.
 */
export const ANSWERED_MAX = 2_000;

/** The first response status filter without `pending` (only records with such a response pass), else undefined. */
export function answeredStatusFilter(filters: SearchFilter[]): (SearchFilter & { type: "terms" }) | undefined {
  for (const f of filters)
    if (f.type === "terms" && f.scope.entity === "response_status" && f.values.length > 0 && !f.values.includes("pending")) return f;
  return undefined;
}

/** The statuses of a response status filter that only answered records pass (no `pending`), else null. */
export function answeredStatuses(filters: SearchFilter[]): string[] | null {
  return answeredStatusFilter(filters)?.values.map(String) ?? null;
}
