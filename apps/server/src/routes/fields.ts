import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { parse } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { fieldOut } from "../http/serializers.js";
import { datasetFor } from "../auth/policies.js";
import { nameSchema, rejectNullKeys, titleSchema } from "../settings/common.js";
import { FieldSettingsCreateSchema, FieldSettingsUpdateSchema } from "../settings/fields.js";
import { findField } from "../settings/use-cases/find-field.js";
import { listFields } from "../settings/use-cases/list-fields.js";
import { createField } from "../settings/use-cases/create-field.js";
import { updateField } from "../settings/use-cases/update-field.js";
import { deleteField } from "../settings/use-cases/delete-field.js";

const FieldCreate = z.object({
  name: nameSchema,
  title: titleSchema,
  required: z.boolean().nullable().optional(),
  settings: FieldSettingsCreateSchema,
});

const FieldUpdate = z.object({ title: titleSchema.optional(), settings: FieldSettingsUpdateSchema.optional() });

/** Fields (contract 3.5). */
export function fieldsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/datasets/:dataset_id/fields", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "read");
    return { items: (await listFields(ctx.db, dataset.id)).map(fieldOut) };
  });

  app.post("/api/v1/datasets/:dataset_id/fields", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const body = parse(FieldCreate, request.body);
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    return reply.status(201).send(fieldOut(await createField(ctx.db, dataset, body)));
  });

  app.patch("/api/v1/fields/:field_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { field_id } = pathIds(request, "field_id");
    rejectNullKeys(request.body, ["title", "settings"]);
    const body = parse(FieldUpdate, request.body);
    const { field } = await findField(ctx.db, user, field_id, "admin");
    return fieldOut(await updateField(ctx.db, field, body));
  });

  app.delete("/api/v1/fields/:field_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { field_id } = pathIds(request, "field_id");
    const { field, dataset } = await findField(ctx.db, user, field_id, "admin");
    await deleteField(ctx.db, field, dataset);
    return fieldOut(field);
  });
}
