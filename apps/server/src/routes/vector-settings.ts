import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { parse } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { vectorSettingsOut } from "../http/serializers.js";
import { datasetFor } from "../auth/policies.js";
import { nameSchema, rejectNullKeys, titleSchema } from "../settings/common.js";
import { findVectorSettings } from "../settings/use-cases/find-vector-settings.js";
import { listVectorSettings } from "../settings/use-cases/list-vector-settings.js";
import { createVectorSettings } from "../settings/use-cases/create-vector-settings.js";
import { updateVectorSettings } from "../settings/use-cases/update-vector-settings.js";
import { deleteVectorSettings } from "../settings/use-cases/delete-vector-settings.js";

/** Upper bound on dimensions (the contract only says "> 0"); large enough for every common embedding model. */
export const MAX_VECTOR_DIMENSIONS = 16384;

const VectorSettingsCreate = z.object({
  name: nameSchema,
  title: titleSchema,
  dimensions: z.number().int().min(1, { message: "Input should be greater than 0" }).max(MAX_VECTOR_DIMENSIONS),
});
const VectorSettingsUpdate = z.object({ title: titleSchema.optional() });

/** Vector settings (contract 3.8). */
export function vectorSettingsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/datasets/:dataset_id/vectors-settings", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "read");
    return { items: (await listVectorSettings(ctx.db, dataset.id)).map(vectorSettingsOut) };
  });

  app.post("/api/v1/datasets/:dataset_id/vectors-settings", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const body = parse(VectorSettingsCreate, request.body);
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    return reply.status(201).send(vectorSettingsOut(await createVectorSettings(ctx.db, dataset, body)));
  });

  app.patch("/api/v1/vectors-settings/:vector_settings_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { vector_settings_id } = pathIds(request, "vector_settings_id");
    rejectNullKeys(request.body, ["title"]);
    const body = parse(VectorSettingsUpdate, request.body);
    const { vectorSettings } = await findVectorSettings(ctx.db, user, vector_settings_id, "admin");
    return vectorSettingsOut(await updateVectorSettings(ctx.db, vectorSettings, body));
  });

  app.delete("/api/v1/vectors-settings/:vector_settings_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { vector_settings_id } = pathIds(request, "vector_settings_id");
    const { vectorSettings } = await findVectorSettings(ctx.db, user, vector_settings_id, "admin");
    await deleteVectorSettings(ctx.db, vectorSettings);
    return vectorSettingsOut(vectorSettings);
  });
}
