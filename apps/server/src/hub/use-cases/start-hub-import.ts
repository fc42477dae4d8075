import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { DatasetRow } from "../../auth/policies.js";
import { HttpError, unprocessable } from "../../http/errors.js";
import type { Job, JobQueue } from "../../jobs/port.js";
import { loadDatasetSchema } from "../../records/dataset-schema.js";
import { HubError, type HubClient } from "../client.js";
import { HUB_IMPORT_JOB, HUB_NOT_FOUND_MESSAGE, type HubImportPayload } from "../import-job.js";
import { mappedColumns, type HubImportBody } from "../mapping.js";

/** Hub failures as clear HTTP answers: unknown repo 422, Hub down 502/503 (never a 500). */
async function hubCall<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof HttpError || !(error instanceof HubError)) throw error;
    if (error.kind === "not_found") throw unprocessable(HUB_NOT_FOUND_MESSAGE);
    if (error.kind === "not_ready")
      throw new HttpError(503, { detail: "The Hugging Face Hub is preparing this dataset; retry in a moment" });
    throw new HttpError(502, { detail: error.message });
  }
}

/**
 * Checks the published dataset, the mapping's targets, the Hub repo, subset, split and mapped columns
 * (422, or 502/503 when the Hub fails), then enqueues the `hub_import` job.
 */
export async function startHubImport(
  deps: { db: Kysely<DB>; hub: HubClient; jobs: JobQueue },
  dataset: DatasetRow,
  body: HubImportBody,
): Promise<Job> {
  if (dataset.status !== "ready") throw unprocessable("It is not possible to import records to a non published dataset");

  const schema = await loadDatasetSchema(deps.db, dataset);
  const unknownTargets = [
    ...body.mapping.fields.filter((m) => !schema.fieldByName.has(m.target)).map((m) => `field \`${m.target}\``),
    ...body.mapping.metadata.filter((m) => !schema.metadataByName.has(m.target)).map((m) => `metadata property \`${m.target}\``),
    ...body.mapping.suggestions.filter((m) => !schema.questionByName.has(m.target)).map((m) => `question \`${m.target}\``),
  ];
  if (unknownTargets.length > 0)
    throw unprocessable(`The mapping targets do not exist in dataset with id \`${dataset.id}\`: ${unknownTargets.join(", ")}`);

  const features = await hubCall(async () => {
    const { splits } = await deps.hub.splits(body.name);
    if (!splits.some((s) => s.config === body.subset && s.split === body.split)) {
      throw unprocessable(`Subset \`${body.subset}\` with split \`${body.split}\` not found in Hugging Face dataset \`${body.name}\``);
    }
    return (await deps.hub.info(body.name, body.subset)).features ?? null;
  });
  if (features) {
    const missing = mappedColumns(body.mapping).filter((column) => !(column in features));
    if (missing.length > 0)
      throw unprocessable(`Columns not found in Hugging Face dataset \`${body.name}\` (subset \`${body.subset}\`): ${missing.join(", ")}`);
  }

  const payload: HubImportPayload = {
    dataset_id: dataset.id,
    name: body.name,
    subset: body.subset,
    split: body.split,
    mapping: body.mapping,
  };
  return deps.jobs.enqueue(HUB_IMPORT_JOB, payload);
}
