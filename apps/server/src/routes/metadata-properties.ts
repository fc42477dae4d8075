import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { parse } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { metadataPropertyOut } from "../http/serializers.js";
import { datasetFor } from "../auth/policies.js";
import { rejectNullKeys, strictNameSchema, titleSchema } from "../settings/common.js";
import { MetadataSettingsSchema } from "../settings/metadata.js";
import { findMetadataProperty } from "../settings/use-cases/find-metadata-property.js";
import { listMetadataProperties } from "../settings/use-cases/list-metadata-properties.js";
import { createMetadataProperty } from "../settings/use-cases/create-metadata-property.js";
import { updateMetadataProperty } from "../settings/use-cases/update-metadata-property.js";
import { deleteMetadataProperty } from "../settings/use-cases/delete-metadata-property.js";
import { computeMetadataMetrics } from "../settings/use-cases/compute-metadata-metrics.js";
import { metadataSortIndexesFor } from "../search/for-store.js";

const MetadataPropertyCreate = z.object({
  name: strictNameSchema,
  title: titleSchema,
  settings: MetadataSettingsSchema,
  visible_for_annotators: z.boolean().default(true),
});

const MetadataPropertyUpdate = z.object({ title: titleSchema.optional(), visible_for_annotators: z.boolean().optional() });

/** Metadata properties (contract 3.7). */
export function metadataPropertiesRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/me/datasets/:dataset_id/metadata-properties", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "read");
    return { items: (await listMetadataProperties(ctx.db, user, dataset)).map(metadataPropertyOut) };
  });

  app.post("/api/v1/datasets/:dataset_id/metadata-properties", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const body = parse(MetadataPropertyCreate, request.body);
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    return reply.status(201).send(metadataPropertyOut(await createMetadataProperty(ctx.db, dataset, body)));
  });

  app.get("/api/v1/metadata-properties/:metadata_property_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { metadata_property_id } = pathIds(request, "metadata_property_id");
    return metadataPropertyOut((await findMetadataProperty(ctx.db, user, metadata_property_id, "read")).property);
  });

  app.get("/api/v1/metadata-properties/:metadata_property_id/metrics", async (request) => {
    const user = await ctx.currentUser(request);
    const { metadata_property_id } = pathIds(request, "metadata_property_id");
    const { property } = await findMetadataProperty(ctx.db, user, metadata_property_id, "read");
    return computeMetadataMetrics(ctx.db, property, metadataSortIndexesFor(ctx.store));
  });

  app.patch("/api/v1/metadata-properties/:metadata_property_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { metadata_property_id } = pathIds(request, "metadata_property_id");
    rejectNullKeys(request.body, ["title", "visible_for_annotators"]);
    const body = parse(MetadataPropertyUpdate, request.body);
    const { property } = await findMetadataProperty(ctx.db, user, metadata_property_id, "admin");
    return metadataPropertyOut(await updateMetadataProperty(ctx.db, property, body));
  });

  app.delete("/api/v1/metadata-properties/:metadata_property_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { metadata_property_id } = pathIds(request, "metadata_property_id");
    const { property } = await findMetadataProperty(ctx.db, user, metadata_property_id, "admin");
    await deleteMetadataProperty(ctx.db, property);
    return metadataPropertyOut(property);
  });
}
