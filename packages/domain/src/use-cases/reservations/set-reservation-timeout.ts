import { reservationTimeoutProblem } from "../../rules/reservation-rules.js";
import type { ReservationRepository } from "./ports.js";

/** An admin sets how long a record stays reserved for the annotator it was handed to (seconds). */
export class SetReservationTimeoutUseCase {
  constructor(private readonly reservations: ReservationRepository) {}
  /** Refuses a time-out the rule refuses (RangeError naming the problem) before asking the server. */
  execute(datasetId: string, ttlSeconds: number): Promise<number> {
    const problem = reservationTimeoutProblem(ttlSeconds);
    if (problem) return Promise.reject(new RangeError(problem));
    return this.reservations.setTimeout(datasetId, ttlSeconds);
  }
}
