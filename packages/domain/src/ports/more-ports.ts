import type { Workspace } from "../entities/workspace.js";
import type { Job, JobStatus } from "../entities/job.js";
import type { HubSubsetInfo } from "../entities/hub.js";

export interface WorkspaceRepository {
  /** GET /v1/me/workspaces; throws GET_WORKSPACES. */
  list(): Promise<Workspace[]>;
  /** POST /v1/workspaces; throws CREATE_WORKSPACE. */
  create(name: string): Promise<Workspace>;
  /** GET /v1/workspaces/{id} (cached); throws ERROR_FETCHING_WORKSPACE_INFO. */
  getById(workspaceId: string): Promise<Workspace>;
}

export interface JobRepository {
  /** GET /v1/jobs/{id}. */
  get(jobId: string): Promise<Job>;
}
export type { JobStatus };

export interface HubDatasetInfo {
  repoId: string;
  subsets: HubSubsetInfo[];
}

export interface HubRepository {
  /** The external datasets server's dataset_info (public call); throws ERROR_FETCHING_DATASET_INFO. */
  getDatasetInfo(repoId: string): Promise<HubDatasetInfo>;
  /** The first row of a split; a failure returns an empty record ({}). */
  getFirstRow(repoId: string, subset: string, split: string): Promise<{ [column: string]: unknown }>;
}

/** Time for use cases that wait (import polling); tests pass a fake. */
export interface Clock {
  now(): number;
  delay(ms: number): Promise<void>;
}
