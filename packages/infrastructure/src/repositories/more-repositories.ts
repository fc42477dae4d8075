import ky, { type KyInstance } from "ky";
import {
  ErrorCode,
  type Clock,
  type HubDatasetInfo,
  type HubFeature,
  type HubRepository,
  type Job,
  type JobRepository,
  type JobStatus,
  type Workspace,
  type WorkspaceRepository,
} from "@tessera/domain";
import { call, seg } from "../http/call.js";

export class HttpWorkspaceRepository implements WorkspaceRepository {
  constructor(private readonly http: KyInstance) {}
  list(): Promise<Workspace[]> {
    return call(ErrorCode.GET_WORKSPACES, async () =>
      (await this.http.get("v1/me/workspaces").json<{ items: Workspace[] }>()).items.map((w) => ({ id: w.id, name: w.name })),
    );
  }
  create(name: string): Promise<Workspace> {
    return call(ErrorCode.CREATE_WORKSPACE, async () => {
      const w = await this.http.post("v1/workspaces", { json: { name } }).json<Workspace>();
      return { id: w.id, name: w.name };
    });
  }
  getById(workspaceId: string): Promise<Workspace> {
    return call(ErrorCode.ERROR_FETCHING_WORKSPACE_INFO, async () => {
      const w = await this.http.get(`v1/workspaces/${seg(workspaceId)}`).json<Workspace>();
      return { id: w.id, name: w.name };
    });
  }
}

export class HttpJobRepository implements JobRepository {
  constructor(private readonly http: KyInstance) {}
  async get(jobId: string): Promise<Job> {
    const j = await this.http.get(`v1/jobs/${seg(jobId)}`).json<{ id: string; status: JobStatus }>();
    return { id: j.id, status: j.status };
  }
}

interface BackendDatasetInfo {
  dataset_name?: string;
  features?: { [column: string]: HubFeature };
  splits?: { [split: string]: unknown };
}

/**
 * The external datasets server (public, no credentials, no toasts): dataset_info for the creation
 * model and the first row for the preview.
 */
export class HttpHubRepository implements HubRepository {
  private readonly http: KyInstance;
  constructor(baseUrl: string, fetchFn?: typeof fetch) {
    this.http = ky.create({ prefix: `${baseUrl.replace(/\/+$/, "")}/`, retry: 0, timeout: 30_000, ...(fetchFn ? { fetch: fetchFn } : {}) });
  }

  getDatasetInfo(repoId: string): Promise<HubDatasetInfo> {
    return call(ErrorCode.ERROR_FETCHING_DATASET_INFO, async () => {
      const info = await this.http
        .get("info", { searchParams: { dataset: repoId } })
        .json<{ dataset_info: { [config: string]: BackendDatasetInfo } }>();
      const subsets = Object.entries(info.dataset_info ?? {}).map(([name, d]) => ({
        name,
        splits: Object.keys(d.splits ?? {}),
        features: d.features ?? {},
      }));
      if (subsets.length === 0) throw new Error("Dataset not found or available on Hugging Face");
      return { repoId, subsets };
    });
  }

  async getFirstRow(repoId: string, subset: string, split: string): Promise<{ [column: string]: unknown }> {
    try {
      const result = await this.http
        .get("first-rows", { searchParams: { dataset: repoId, config: subset, split } })
        .json<{ rows: Array<{ row: { [column: string]: unknown } }> }>();
      return result.rows[0]?.row ?? {};
    } catch {
      return {};
    }
  }
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  delay: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};
