import type { JobStatus } from "../../entities/job.js";
import type { JobRepository } from "../../ports/more-ports.js";

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
