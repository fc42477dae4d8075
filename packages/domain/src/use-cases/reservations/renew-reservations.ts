import type { ReservationRepository } from "./ports.js";

/** The annotator is still at work: keeps their records theirs for another time-out. */
export class RenewReservationsUseCase {
  constructor(private readonly reservations: ReservationRepository) {}
  execute(datasetId: string): Promise<void> {
    return this.reservations.renew(datasetId);
  }
}
