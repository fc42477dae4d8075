import type { Dataset } from "../entities/dataset.js";
import type { Progress } from "../entities/progress.js";

export interface DatasetRepository {
  /** GET /v1/me/datasets; throws ERROR_FETCHING_FEEDBACK_DATASETS. */
  list(): Promise<Dataset[]>;
  /** GET /v1/datasets/{id}/progress; throws ERROR_DELETING_DATASET (spec section 8 reuse). */
  getProgress(datasetId: string): Promise<Progress>;
}
