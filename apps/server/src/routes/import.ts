import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.js";
import { datasetFor } from "../auth/policies.js";
import { parse, uuidParam, validationError } from "../http/errors.js";
import { isValidRepoId } from "../hub/client.js";
import { hubImportBodySchema } from "../hub/mapping.js";
import { startHubImport } from "../hub/use-cases/start-hub-import.js";
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
    const job = await startHubImport(ctx, dataset, body);
    return reply.status(202).send({ id: job.id, status: job.status });
  });
}
