import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { datasetFor } from "../auth/policies.js";
import { parse, validationError } from "../http/errors.js";
import { isValidRepoId } from "../hub/client.js";
import { startHubExport } from "../hub/use-cases/start-hub-export.js";
import { uuidPath } from "../records/access.js";

const HubExportBody = z.object({
  name: z.string().min(1).max(200),
  subset: z.string().min(1).max(200).default("default"),
  split: z
    .string()
    .min(1)
    .max(200)
    .regex(/^[\w.-]+$/, { message: "String should match pattern '^[\\w.-]+$'" })
    .default("train"),
  private: z.boolean().default(false),
  token: z.string().min(1).max(1000),
});

/**
 * `POST /api/v1/datasets/{id}/export` (contract 3.15, newer servers): owner or admin member;
 * 422 for a malformed body or repo id, 422 ``Dataset with id `D` has no records to export``;
 * otherwise 202 `{id, status}` of a `hub_export` job (poll `GET /api/v1/jobs/{id}`). The job fails
 * with a clear error while no Hub uploader is configured (docs/hub.md).
 */
export function exportRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post("/api/v1/datasets/:dataset_id/export", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const datasetId = uuidPath(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, datasetId, "admin");
    const body = parse(HubExportBody, request.body);
    if (!isValidRepoId(body.name)) {
      throw validationError([
        { type: "value_error", loc: ["body", "name"], msg: "Value error, name must be a Hugging Face dataset id such as `owner/name`" },
      ]);
    }
    if (/[/\\]|^\.+$/.test(body.subset)) {
      throw validationError([
        { type: "value_error", loc: ["body", "subset"], msg: "Value error, subset must not contain path separators" },
      ]);
    }
    const job = await startHubExport(ctx, dataset, body);
    return reply.status(202).send({ id: job.id, status: job.status });
  });
}
