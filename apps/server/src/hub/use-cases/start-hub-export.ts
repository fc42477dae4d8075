import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { DatasetRow } from "../../auth/policies.js";
import { unprocessable } from "../../http/errors.js";
import type { Job, JobQueue } from "../../jobs/port.js";
import { exportTokens, HUB_EXPORT_JOB, type HubExportPayload } from "../export-job.js";

export interface HubExportRequest {
  name: string;
  subset: string;
  split: string;
  private: boolean;
  token: string;
}

/**
 * Enqueues the `hub_export` job of a dataset with records (422 when it has none). The Hub token is kept
 * in this process's memory for the job only (never in the `jobs` table).
 */
export async function startHubExport(
  deps: { db: Kysely<DB>; jobs: JobQueue },
  dataset: DatasetRow,
  request: HubExportRequest,
): Promise<Job> {
  const any = await deps.db.selectFrom("records").select("id").where("dataset_id", "=", dataset.id).limit(1).executeTakeFirst();
  if (!any) throw unprocessable(`Dataset with id \`${dataset.id}\` has no records to export`);
  const tokenRef = randomUUID();
  exportTokens.put(tokenRef, request.token);
  const payload: HubExportPayload = {
    dataset_id: dataset.id,
    name: request.name,
    subset: request.subset,
    split: request.split,
    private: request.private,
    token_ref: tokenRef,
  };
  return deps.jobs.enqueue(HUB_EXPORT_JOB, payload, { maxAttempts: 1 });
}
