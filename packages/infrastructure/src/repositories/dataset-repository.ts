import type { KyInstance } from "ky";
import { Dataset, type DatasetRepository, ErrorCode, Progress, RepositoryError } from "@tessera/domain";
import { statusOf } from "../http/http-client.js";

export interface BackendDataset {
  id: string; name: string; guidelines: string | null; status: "draft" | "ready"; workspace_id: string;
  allow_extra_metadata: boolean; distribution: { strategy: "overlap"; min_submitted: number };
  metadata: Record<string, unknown> | null; inserted_at: string; updated_at: string; last_activity_at: string;
}
interface BackendWorkspace { id: string; name: string }

export class HttpDatasetRepository implements DatasetRepository {
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
      const p = await this.http.get(`v1/datasets/${encodeURIComponent(datasetId)}/progress`).json<{ total: number; completed: number; pending: number }>();
      return new Progress(p.total, p.completed, p.pending);
    } catch (error) {
      // Spec section 8: progress failures reuse ERROR_DELETING_DATASET.
      throw new RepositoryError(ErrorCode.ERROR_DELETING_DATASET, statusOf(error), { cause: error });
    }
  }
}

export function toDataset(d: BackendDataset, workspaceName: string): Dataset {
  return new Dataset({
    id: d.id, name: d.name, guidelines: d.guidelines, status: d.status, workspaceId: d.workspace_id, workspaceName,
    allowExtraMetadata: d.allow_extra_metadata, distribution: { strategy: d.distribution.strategy, minSubmitted: d.distribution.min_submitted },
    metadata: d.metadata, createdAt: d.inserted_at, updatedAt: d.updated_at, lastActivityAt: d.last_activity_at,
  });
}
