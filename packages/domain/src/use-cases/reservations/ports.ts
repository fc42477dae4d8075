/**
 * Reservations of the annotation queue (issue 29): the records the server hands an annotator from
 * their pending queue are theirs for a while; records whose answers plus reservations reach the
 * dataset's min_submitted are skipped for the others.
 */

/** What a reserving queue load tells besides its records. */
export interface QueueReservations {
  /** When the caller's reservations run out unless renewed (ISO). */
  expiresAt: string;
  /** The dataset's time-out in seconds (the web app renews within it while the annotator works). */
  ttlSeconds: number;
  /** Records of the caller's queue that teammates hold, and how many teammates hold them. */
  heldByOthers: { records: number; teammates: number };
}

/** Records in progress of a dataset (admins): overall and per annotator. */
export interface RecordsInProgress {
  records: number;
  /** The dataset's reservation time-out in seconds. */
  ttlSeconds: number;
  users: Array<{ userId: string; username: string; records: number; expiresAt: string }>;
}

export interface ReservationRepository {
  /** POST /v1/me/datasets/{id}/reservations/renew; throws ERROR_RESERVATIONS. */
  renew(datasetId: string): Promise<void>;
  /** DELETE /v1/me/datasets/{id}/reservations (leaving the dataset; survives the page unloading); throws ERROR_RESERVATIONS. */
  release(datasetId: string): Promise<void>;
  /** DELETE /v1/me/reservations (signing out: sent with the token still held); throws ERROR_RESERVATIONS. */
  releaseAll(): Promise<void>;
  /** GET /v1/datasets/{id}/reservations; throws ERROR_RESERVATIONS. */
  inProgress(datasetId: string): Promise<RecordsInProgress>;
  /** DELETE /v1/datasets/{id}/reservations/users/{userId}; throws ERROR_RESERVATIONS. */
  releaseUser(datasetId: string, userId: string): Promise<void>;
  /** PUT /v1/datasets/{id}/reservations/settings; returns the time-out now in force; throws ERROR_RESERVATIONS. */
  setTimeout(datasetId: string, ttlSeconds: number): Promise<number>;
}

export const RESERVATION_TOKENS = {
  ReservationRepository: Symbol.for("tessera.ReservationRepository"),
} as const;
