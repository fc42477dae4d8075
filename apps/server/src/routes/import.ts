import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.js";
import { datasetFor } from "../auth/policies.js";
import { HttpError, parse, unprocessable, uuidParam, validationError } from "../http/errors.js";
import { HubError, isValidRepoId } from "../hub/client.js";
import { HUB_IMPORT_JOB, HUB_NOT_FOUND_MESSAGE, type HubImportPayload } from "../hub/import-job.js";
import { hubImportBodySchema, mappedColumns } from "../hub/mapping.js";
import { loadDatasetSchema } from "../records/dataset-schema.js";
import { z } from "zod";

/**
 * `POST /api/v1/datasets/{id}/import` (contract 3.15 and 6): checks the caller (owner, or admin
 * member of the dataset's workspace), the published dataset, the Hub repo, subset, split and mapped
 * columns, then enqueues the import job and answers 202 `{id, status: "queued"}`.
 */
export function importRoutes(app: FastifyInstance, ctx: AppContext): void {
  // Public: where the web app's dataset-creation page reads Hub metadata (docs/hub.md). The browser
  // calls the viewer API directly (spec section 7), so it needs the configured URL, not a proxy.
  app.get("/api/v1/hub/settings", async () => ({ datasets_server_url: ctx.config.hub.datasetsServerUrl.replace(/\/$/, "") }));

  app.post("/api/v1/datasets/:datasetId/import", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { datasetId } = parse(z.object({ datasetId: uuidParam }), request.params, "path");
    const dataset = await datasetFor(ctx.db, user, datasetId, "admin");
    const body = parse(hubImportBodySchema, request.body);
    if (!isValidRepoId(body.name)) {
      throw validationError([
        { type: "value_error", loc: ["body", "name"], msg: "Value error, name must be a Hugging Face dataset id such as `owner/name`" },
      ]);
    }
    if (dataset.status !== "ready") throw unprocessable("It is not possible to import records to a non published dataset");

    const schema = await loadDatasetSchema(ctx.db, dataset);
    const unknownTargets = [
      ...body.mapping.fields.filter((m) => !schema.fieldByName.has(m.target)).map((m) => `field \`${m.target}\``),
      ...body.mapping.metadata.filter((m) => !schema.metadataByName.has(m.target)).map((m) => `metadata property \`${m.target}\``),
      ...body.mapping.suggestions.filter((m) => !schema.questionByName.has(m.target)).map((m) => `question \`${m.target}\``),
    ];
    if (unknownTargets.length > 0)
      throw unprocessable(`The mapping targets do not exist in dataset with id \`${datasetId}\`: ${unknownTargets.join(", ")}`);

    const features = await hubCall(async () => {
      const { splits } = await ctx.hub.splits(body.name);
      if (!splits.some((s) => s.config === body.subset && s.split === body.split)) {
        throw unprocessable(`Subset \`${body.subset}\` with split \`${body.split}\` not found in Hugging Face dataset \`${body.name}\``);
      }
      return (await ctx.hub.info(body.name, body.subset)).features ?? null;
    });
    if (features) {
      const missing = mappedColumns(body.mapping).filter((column) => !(column in features));
      if (missing.length > 0)
        throw unprocessable(
          `Columns not found in Hugging Face dataset \`${body.name}\` (subset \`${body.subset}\`): ${missing.join(", ")}`,
        );
    }

    const payload: HubImportPayload = {
      dataset_id: datasetId,
      name: body.name,
      subset: body.subset,
      split: body.split,
      mapping: body.mapping,
    };
    const job = await ctx.jobs.enqueue(HUB_IMPORT_JOB, payload);
    return reply.status(202).send({ id: job.id, status: job.status });
  });
}

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
