import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { parse, uuidParam } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { datasetOut } from "../http/serializers.js";
import { datasetFor } from "../auth/policies.js";
import { nameSchema, rejectNullKeys } from "../settings/common.js";
import { DistributionSchema } from "../datasets/dataset-rules.js";
import { createDataset } from "../datasets/use-cases/create-dataset.js";
import { updateDataset } from "../datasets/use-cases/update-dataset.js";
import { deleteDataset } from "../datasets/use-cases/delete-dataset.js";
import { publishDataset } from "../datasets/use-cases/publish-dataset.js";

const name = nameSchema;
const guidelines = z.string().min(1).max(10000).nullable();
const metadata = z.record(z.string(), z.json()).nullable();

const DatasetCreate = z.object({
  name,
  guidelines: guidelines.optional().default(null),
  allow_extra_metadata: z.boolean().default(true),
  distribution: DistributionSchema.default({ strategy: "overlap", min_submitted: 1 }),
  metadata: metadata.optional().default(null),
  workspace_id: uuidParam,
});

const DatasetUpdate = z.object({
  name: name.optional(),
  guidelines: guidelines.optional(),
  allow_extra_metadata: z.boolean().optional(),
  distribution: DistributionSchema.optional(),
  metadata: metadata.optional(),
});

/** Datasets (contract 3.4). `/me/datasets` lives in me.ts. */
export function datasetsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post("/api/v1/datasets", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const body = parse(DatasetCreate, request.body);
    return reply.status(201).send(datasetOut(await createDataset(ctx, user, body)));
  });

  app.get("/api/v1/datasets/:dataset_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    return datasetOut(await datasetFor(ctx.db, user, dataset_id, "read"));
  });

  app.patch("/api/v1/datasets/:dataset_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    rejectNullKeys(request.body, ["name", "allow_extra_metadata", "distribution"]);
    const body = parse(DatasetUpdate, request.body);
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    return datasetOut(await updateDataset(ctx, dataset, body));
  });

  app.delete("/api/v1/datasets/:dataset_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    await deleteDataset(ctx, dataset);
    return datasetOut(dataset);
  });

  app.put("/api/v1/datasets/:dataset_id/publish", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    return datasetOut(await publishDataset(ctx, dataset));
  });
}
