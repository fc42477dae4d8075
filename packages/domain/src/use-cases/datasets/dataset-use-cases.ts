import type { DatasetMetrics } from "../../entities/metrics.js";
import type { MetadataMetrics, MetadataProperty } from "../../entities/metadata.js";
import type { Workspace } from "../../entities/workspace.js";
import type { JobStatus } from "../../entities/job.js";
import type { DatasetManagementRepository } from "../../ports/dataset-repository.js";
import type { MetadataRepository } from "../../ports/settings-repositories.js";
import type { JobRepository, WorkspaceRepository } from "../../ports/more-ports.js";

/** Danger zone: deletes the dataset (only HTTP 200 counts as success). */
export class DeleteDatasetUseCase {
  constructor(private readonly datasets: DatasetManagementRepository) {}
  execute(datasetId: string): Promise<void> { return this.datasets.delete(datasetId); }
}

/** The user's own metrics on a dataset (responded = submitted + discarded + draft). */
export class GetDatasetMetricsUseCase {
  constructor(private readonly datasets: DatasetManagementRepository) {}
  execute(datasetId: string): Promise<DatasetMetrics> { return this.datasets.getMetrics(datasetId); }
}

/** Loads a metadata property's metrics (terms, or min and max) into it. */
export class GetMetadataMetricsUseCase {
  constructor(private readonly metadata: MetadataRepository) {}
  async execute(property: MetadataProperty): Promise<MetadataMetrics> {
    property.metrics = await this.metadata.getMetrics(property.id);
    return property.metrics;
  }
}

/** The workspaces the user can use (dataset creation). */
export class GetWorkspacesUseCase {
  constructor(private readonly workspaces: WorkspaceRepository) {}
  async execute(): Promise<Workspace[]> {
    return [...(await this.workspaces.list())].sort((a, b) => a.name.localeCompare(b.name));
  }
}

/** Job status: queued, started, failed... A failed status call is treated as failed. */
export class GetJobStatusUseCase {
  constructor(private readonly jobs: JobRepository) {}
  async execute(jobId: string): Promise<JobStatus> {
    try {
      return (await this.jobs.get(jobId)).status;
    } catch {
      return "failed";
    }
  }
}
