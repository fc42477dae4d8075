import type { RecordsInProgress, ReservationRepository } from "./ports.js";

/** Records in progress (reserved) of a dataset, overall and per annotator, for admins. */
export class GetRecordsInProgressUseCase {
  constructor(private readonly reservations: ReservationRepository) {}
  execute(datasetId: string): Promise<RecordsInProgress> {
    return this.reservations.inProgress(datasetId);
  }
}
