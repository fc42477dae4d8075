import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { type Kysely, type Selectable, sql } from "kysely";
import { z } from "zod";
import type { AppContext } from "../context.js";
import type { DB, VectorsSettingsTable } from "../db/schema.js";
import type { UserRow } from "../auth/authenticate.js";
import { conflict, notFound, parse, unprocessable } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { vectorSettingsOut } from "../http/serializers.js";
import { datasetFor, type DatasetRow } from "../auth/policies.js";
import { isUniqueViolation } from "../db/introspect.js";
import { nameSchema, rejectNullKeys, titleSchema } from "../settings/common.js";
import { now } from "../clock.js";

export const MAX_VECTOR_SETTINGS_PER_DATASET = 5;
/** Upper bound on dimensions (the contract only says "> 0"); large enough for every common embedding model. */
export const MAX_VECTOR_DIMENSIONS = 16384;

const VectorSettingsCreate = z.object({
  name: nameSchema,
  title: titleSchema,
  dimensions: z.number().int().min(1, { message: "Input should be greater than 0" }).max(MAX_VECTOR_DIMENSIONS),
});
const VectorSettingsUpdate = z.object({ title: titleSchema.optional() });

export type VectorSettingsRow = Selectable<VectorsSettingsTable>;

export async function vectorSettingsFor(
  db: Kysely<DB>,
  user: UserRow,
  id: string,
  access: "read" | "admin",
): Promise<{ vectorSettings: VectorSettingsRow; dataset: DatasetRow }> {
  const vectorSettings = await db.selectFrom("vectors_settings").selectAll().where("id", "=", id).executeTakeFirst();
  if (!vectorSettings) throw notFound(`Vector settings with id \`${id}\` not found`);
  return { vectorSettings, dataset: await datasetFor(db, user, vectorSettings.dataset_id, access) };
}

const duplicateName = (name: string, datasetId: string) =>
  conflict(`Vector settings with name \`${name}\` already exists for dataset with id \`${datasetId}\``);

/** Vector settings (contract 3.8). */
export function vectorSettingsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/datasets/:dataset_id/vectors-settings", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "read");
    const items = await ctx.db
      .selectFrom("vectors_settings")
      .selectAll()
      .where("dataset_id", "=", dataset.id)
      .orderBy("inserted_at")
      .orderBy(sql`rowid`)
      .execute();
    return { items: items.map(vectorSettingsOut) };
  });

  app.post("/api/v1/datasets/:dataset_id/vectors-settings", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const body = parse(VectorSettingsCreate, request.body);
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    const existing = await ctx.db.selectFrom("vectors_settings").select("name").where("dataset_id", "=", dataset.id).execute();
    if (existing.some((v) => v.name === body.name)) throw duplicateName(body.name, dataset.id);
    if (existing.length >= MAX_VECTOR_SETTINGS_PER_DATASET) {
      throw unprocessable(`The maximum number of vector settings has been reached for dataset with id \`${dataset.id}\``);
    }
    const timestamp = now();
    const row: VectorSettingsRow = {
      id: randomUUID(),
      dataset_id: dataset.id,
      name: body.name,
      title: body.title,
      dimensions: body.dimensions,
      inserted_at: timestamp,
      updated_at: timestamp,
    };
    try {
      await ctx.db.insertInto("vectors_settings").values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateName(body.name, dataset.id);
      throw error;
    }
    return reply.status(201).send(vectorSettingsOut(row));
  });

  app.patch("/api/v1/vectors-settings/:vector_settings_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { vector_settings_id } = pathIds(request, "vector_settings_id");
    rejectNullKeys(request.body, ["title"]);
    const body = parse(VectorSettingsUpdate, request.body);
    const { vectorSettings } = await vectorSettingsFor(ctx.db, user, vector_settings_id, "admin");
    const changes: Partial<VectorSettingsRow> = { updated_at: now() };
    if (body.title !== undefined) changes.title = body.title;
    await ctx.db.updateTable("vectors_settings").set(changes).where("id", "=", vectorSettings.id).execute();
    return vectorSettingsOut({ ...vectorSettings, ...changes });
  });

  app.delete("/api/v1/vectors-settings/:vector_settings_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { vector_settings_id } = pathIds(request, "vector_settings_id");
    const { vectorSettings } = await vectorSettingsFor(ctx.db, user, vector_settings_id, "admin");
    await ctx.db.deleteFrom("vectors_settings").where("id", "=", vectorSettings.id).execute();
    return vectorSettingsOut(vectorSettings);
  });
}
