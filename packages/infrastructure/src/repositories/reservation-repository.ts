import type { KyInstance } from "ky";
import { ErrorCode, type QueueReservations, type RecordsInProgress, type ReservationRepository, type TokenStore } from "@tessera/domain";
import { call, seg } from "../http/call.js";

/** The `reservations` member of a reserving search (docs/api.md, "Reservations"). */
export interface BackendReservations {
  expires_at: string;
  ttl_seconds: number;
  held_by_others: { records: number; teammates: number };
}

export function toQueueReservations(wire: BackendReservations | undefined): QueueReservations | null {
  if (!wire) return null;
  return {
    expiresAt: wire.expires_at,
    ttlSeconds: wire.ttl_seconds,
    heldByOthers: { records: wire.held_by_others.records, teammates: wire.held_by_others.teammates },
  };
}

/** Reservations of the annotation queue (Tessera's own endpoints, issue 29). */
export class HttpReservationRepository implements ReservationRepository {
  constructor(
    private readonly http: KyInstance,
    private readonly tokens: TokenStore,
  ) {}

  renew(datasetId: string): Promise<void> {
    return call(ErrorCode.ERROR_RESERVATIONS, async () => {
      await this.http.post(`v1/me/datasets/${seg(datasetId)}/reservations/renew`);
    });
  }

  release(datasetId: string): Promise<void> {
    return call(ErrorCode.ERROR_RESERVATIONS, async () => {
      await this.http.delete(`v1/me/datasets/${seg(datasetId)}/reservations`, this.leaving());
    });
  }

  releaseAll(): Promise<void> {
    return call(ErrorCode.ERROR_RESERVATIONS, async () => {
      await this.http.delete("v1/me/reservations", this.leaving());
    });
  }

  inProgress(datasetId: string): Promise<RecordsInProgress> {
    return call(ErrorCode.ERROR_RESERVATIONS, async () => {
      const wire = await this.http.get(`v1/datasets/${seg(datasetId)}/reservations`).json<{
        in_progress: number;
        ttl_seconds: number;
        users: Array<{ user_id: string; username: string; records: number; expires_at: string }>;
      }>();
      return {
        records: wire.in_progress,
        ttlSeconds: wire.ttl_seconds,
        users: wire.users.map((u) => ({ userId: u.user_id, username: u.username, records: u.records, expiresAt: u.expires_at })),
      };
    });
  }

  releaseUser(datasetId: string, userId: string): Promise<void> {
    return call(ErrorCode.ERROR_RESERVATIONS, async () => {
      await this.http.delete(`v1/datasets/${seg(datasetId)}/reservations/users/${seg(userId)}`);
    });
  }

  /**
   * Requests sent as the user leaves (page unload, sign-out): the token is read now, before it is
   * cleared, and the browser keeps the request alive after the page is gone.
   */
  setTimeout(datasetId: string, ttlSeconds: number): Promise<number> {
    return call(ErrorCode.ERROR_RESERVATIONS, async () => {
      const wire = await this.http
        .put(`v1/datasets/${seg(datasetId)}/reservations/settings`, { json: { ttl_seconds: ttlSeconds } })
        .json<{ ttl_seconds: number }>();
      return wire.ttl_seconds;
    });
  }

  private leaving(): { headers?: Record<string, string>; keepalive: true } {
    const token = this.tokens.get();
    return { keepalive: true, ...(token ? { headers: { Authorization: `Bearer ${token}` } } : {}) };
  }
}
