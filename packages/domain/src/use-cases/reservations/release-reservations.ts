import type { ReservationRepository } from "./ports.js";

/** The annotator leaves the dataset: their records go back to the team's queue. */
export class ReleaseReservationsUseCase {
  constructor(private readonly reservations: ReservationRepository) {}
  execute(datasetId: string): Promise<void> {
    return this.reservations.release(datasetId);
  }
}
