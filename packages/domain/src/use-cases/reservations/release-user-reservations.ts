import type { ReservationRepository } from "./ports.js";

/** An admin gives a user's records back to the team (someone left without signing out). */
export class ReleaseUserReservationsUseCase {
  constructor(private readonly reservations: ReservationRepository) {}
  execute(datasetId: string, userId: string): Promise<void> {
    return this.reservations.releaseUser(datasetId, userId);
  }
}
