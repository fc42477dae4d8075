export type JobStatus = "queued" | "started" | "deferred" | "scheduled" | "finished" | "failed" | "stopped" | "canceled";
export interface Job {
  id: string;
  status: JobStatus;
}
