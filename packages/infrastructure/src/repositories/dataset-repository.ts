import type { KyInstance } from "ky";
import {
  Dataset,
  DatasetMetrics,
  ErrorCode,
  Progress,
  RepositoryError,
  type DatasetChange,
  type DatasetCreate,
  type DatasetImport,
  type DatasetManagementRepository,
  type DatasetRepository,
} from "@tessera/domain";
import { statusOf } from "../http/http-client.js";
import { call, seg } from "../http/call.js";

export interface BackendDataset {
  id: string;
  name: string;
  guidelines: string | null;
  status: "draft" | "ready";
  workspace_id: string;
  allow_extra_metadata: boolean;
  distribution: { strategy: "overlap"; min_submitted: number };
  metadata: Record<string, unknown> | null;
  inserted_at: string;
  updated_at: string;
  last_activity_at: string;
}
interface BackendWorkspace {
  id: string;
  name: string;
}

export class HttpDatasetRepository implements DatasetRepository, DatasetManagementRepository {
  constructor(private readonly http: KyInstance) {}

  async list(): Promise<Dataset[]> {
    try {
      const [datasets, workspaces] = await Promise.all([
        this.http.get("v1/me/datasets").json<{ items: BackendDataset[] }>(),
        this.http.get("v1/me/workspaces").json<{ items: BackendWorkspace[] }>(),
      ]);
      const names = new Map(workspaces.items.map((w) => [w.id, w.name]));
      return datasets.items.map((d) => toDataset(d, names.get(d.workspace_id) ?? ""));
    } catch (error) {
      throw new RepositoryError(ErrorCode.ERROR_FETCHING_FEEDBACK_DATASETS, statusOf(error), { cause: error });
    }
  }

  async getProgress(datasetId: string): Promise<Progress> {
    try {
      const p = await this.http
        .get(`v1/datasets/${encodeURIComponent(datasetId)}/progress`)
        .json<{ total: number; completed: number; pending: number }>();
      return new Progress(p.total, p.completed, p.pending);
    } catch (error) {
      // Spec section 8: progress failures reuse ERROR_DELETING_DATASET.
      throw new RepositoryError(ErrorCode.ERROR_DELETING_DATASET, statusOf(error), { cause: error });
    }
  }

  getById(datasetId: string): Promise<Dataset> {
    return call(ErrorCode.ERROR_FETCHING_DATASET, async () => {
      const d = await this.http.get(`v1/datasets/${seg(datasetId)}`).json<BackendDataset>();
      const w = await this.http.get(`v1/workspaces/${seg(d.workspace_id)}`).json<BackendWorkspace>();
      return toDataset(d, w.name);
    });
  }

  update(datasetId: string, change: DatasetChange): Promise<{ updatedAt: string }> {
    return call(ErrorCode.ERROR_PATCHING_DATASET_GUIDELINES, async () => {
      const json: { [key: string]: unknown } = {};
      if (change.guidelines !== undefined) json["guidelines"] = change.guidelines;
      if (change.allowExtraMetadata !== undefined) json["allow_extra_metadata"] = change.allowExtraMetadata;
      if (change.distribution)
        json["distribution"] = { strategy: change.distribution.strategy, min_submitted: change.distribution.minSubmitted };
      const d = await this.http.patch(`v1/datasets/${seg(datasetId)}`, { json }).json<BackendDataset>();
      return { updatedAt: d.updated_at };
    });
  }

  delete(datasetId: string): Promise<void> {
    return call(ErrorCode.ERROR_DELETING_DATASET, async () => {
      const response = await this.http.delete(`v1/datasets/${seg(datasetId)}`);
      if (response.status !== 200) throw new RepositoryError(ErrorCode.ERROR_DELETING_DATASET, response.status);
    });
  }

  create(dataset: DatasetCreate): Promise<string> {
    return call(ErrorCode.ERROR_CREATING_DATASET, async () => {
      const json = { name: dataset.name, workspace_id: dataset.workspaceId, metadata: { ...dataset.metadata, imported: "UI" } };
      return (await this.http.post("v1/datasets", { json }).json<{ id: string }>()).id;
    });
  }

  publish(datasetId: string): Promise<void> {
    return call(ErrorCode.ERROR_PUBLISHING_DATASET, async () => {
      await this.http.put(`v1/datasets/${seg(datasetId)}/publish`);
    });
  }

  import(datasetId: string, request: DatasetImport): Promise<string> {
    return call(
      ErrorCode.ERROR_IMPORTING_DATASET,
      async () => (await this.http.post(`v1/datasets/${seg(datasetId)}/import`, { json: request }).json<{ id: string }>()).id,
    );
  }

  getMetrics(datasetId: string): Promise<DatasetMetrics> {
    return call(ErrorCode.ERROR_FETCHING_DATASET_INFO, async () => {
      const m = await this.http
        .get(`v1/me/datasets/${seg(datasetId)}/metrics`)
        .json<{ responses: { total: number; submitted: number; discarded: number; draft: number; pending: number } }>();
      const r = m.responses;
      return new DatasetMetrics(r.total, r.submitted, r.discarded, r.draft, r.pending);
    });
  }
}

export function toDataset(d: BackendDataset, workspaceName: string): Dataset {
  return new Dataset({
    id: d.id,
    name: d.name,
    guidelines: d.guidelines,
    status: d.status,
    workspaceId: d.workspace_id,
    workspaceName,
    allowExtraMetadata: d.allow_extra_metadata,
    distribution: { strategy: d.distribution.strategy, minSubmitted: d.distribution.min_submitted },
    metadata: d.metadata,
    createdAt: d.inserted_at,
    updatedAt: d.updated_at,
    lastActivityAt: d.last_activity_at,
  });
}
