import type { Dataset, DatasetChange } from "../entities/dataset.js";
import type { Progress } from "../entities/progress.js";
import type { DatasetMetrics } from "../entities/metrics.js";
import type { HubMapping } from "../entities/hub.js";

export interface DatasetCreate {
  name: string;
  workspaceId: string;
  /** Stored in the dataset's metadata with imported: 'UI'. */
  metadata: { repoId: string; subset: string; split: string; mapping: HubMapping };
}

export interface DatasetImport {
  name: string;
  subset: string;
  split: string;
  mapping: HubMapping;
}

export interface DatasetRepository {
  /** GET /v1/me/datasets; throws ERROR_FETCHING_FEEDBACK_DATASETS. */
  list(): Promise<Dataset[]>;
  /** GET /v1/datasets/{id}/progress; throws ERROR_DELETING_DATASET (spec section 8 reuse). */
  getProgress(datasetId: string): Promise<Progress>;
}

/** Dataset calls beyond the home list: settings, deletion, creation from the Hub, metrics. */
export interface DatasetManagementRepository {
  /** GET /v1/datasets/{id} and its workspace name; throws ERROR_FETCHING_DATASET. */
  getById(datasetId: string): Promise<Dataset>;
  /** PATCH /v1/datasets/{id}; throws ERROR_PATCHING_DATASET_GUIDELINES; returns updated_at. */
  update(datasetId: string, change: DatasetChange): Promise<{ updatedAt: string }>;
  /** DELETE /v1/datasets/{id}; only HTTP 200 is success; throws ERROR_DELETING_DATASET. */
  delete(datasetId: string): Promise<void>;
  /** POST /v1/datasets; throws ERROR_CREATING_DATASET; returns the id. */
  create(dataset: DatasetCreate): Promise<string>;
  /** PUT /v1/datasets/{id}/publish; throws ERROR_PUBLISHING_DATASET. */
  publish(datasetId: string): Promise<void>;
  /** POST /v1/datasets/{id}/import; throws ERROR_IMPORTING_DATASET; returns the job id. */
  import(datasetId: string, request: DatasetImport): Promise<string>;
  /** GET /v1/me/datasets/{id}/metrics; throws ERROR_FETCHING_DATASET_INFO. */
  getMetrics(datasetId: string): Promise<DatasetMetrics>;
}
