import type { Kysely } from "kysely";
import { z } from "zod";
import type { DB } from "../db/schema.js";
import type { DatasetRow } from "../auth/policies.js";
import { minSubmittedOf } from "../records/dataset-schema.js";
import { parse, unprocessable } from "../http/errors.js";
import type { SearchFilter, SearchQuery, SearchResult } from "../search/search-port.js";
import { takeReserved } from "./take.js";
import { sweepExpired, ttlOf } from "./manage.js";

/** The `reservations` member of a reserving search's answer (docs/api.md, "Reservations"). */
export interface ReservationsOut {
  expires_at: string;
  held_by_others: { records: number; teammates: number };
  ttl_seconds: number;
}

const single = (v: unknown) => (Array.isArray(v) ? v[v.length - 1] : v);
const ReserveQuery = z.object({ reserve: z.enum(["true", "false"], { message: "Input should be 'true' or 'false'" }).optional() });

/** `reserve=true|false` on `/me/datasets/{id}/records/search` (absent: false); anything else is a 422. */
export function reserveRequested(rawQuery: unknown): boolean {
  const value = single((rawQuery as Record<string, unknown> | null)?.reserve);
  return parse(ReserveQuery, { reserve: value === undefined ? undefined : String(value) }, "query").reserve === "true";
}

const isPendingTerms = (f: SearchFilter, entity: "response_status" | "record_status") =>
  f.type === "terms" &&
  f.values.length === 1 &&
  f.values[0] === "pending" &&
  (entity === "response_status" ? f.scope.entity === "response_status" : f.scope.entity === "record" && f.scope.property === "status");

/**
 * Reservations apply to the web app's annotation queue: the caller's pending records (response status
 * pending and record status pending), without text, similarity, other filters or a sort.
 */
export function assertReservableQueue(query: Omit<SearchQuery, "offset" | "limit">): void {
  const plain =
    query.text === null &&
    query.vector === null &&
    query.sort.length === 0 &&
    query.filters.length === 2 &&
    query.filters.some((f) => isPendingTerms(f, "response_status")) &&
    query.filters.some((f) => isPendingTerms(f, "record_status"));
  if (!plain)
    throw unprocessable(
      "reserve=true applies to the pending queue only: filters response status pending and record status pending, without query, other filters or sort",
    );
}

/**
 * A reserving search (`reserve=true`): the window of the caller's queue with their reservations
 * first, every record of it reserved for them (reservations/take.ts), and what teammates hold.
 */
export async function reservedQueueWindow(
  db: Kysely<DB>,
  dataset: DatasetRow,
  userId: string,
  query: SearchQuery,
): Promise<SearchResult & { reservations: ReservationsOut }> {
  assertReservableQueue(query);
  await sweepExpired(db);
  const ttlSeconds = await ttlOf(db, dataset.id);
  const taken = await takeReserved(db, {
    datasetId: dataset.id,
    userId,
    minSubmitted: minSubmittedOf(dataset),
    offset: query.offset,
    limit: query.limit,
    ttlSeconds,
  });
  return {
    hits: taken.recordIds.map((recordId) => ({ recordId, score: null })),
    total: taken.total,
    reservations: { expires_at: taken.expiresAt, held_by_others: taken.heldByOthers, ttl_seconds: ttlSeconds },
  };
}
