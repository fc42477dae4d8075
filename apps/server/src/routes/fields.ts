import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { type Kysely, type Selectable, sql } from "kysely";
import { z } from "zod";
import type { AppContext } from "../context.js";
import type { DB, FieldsTable } from "../db/schema.js";
import type { UserRow } from "../auth/authenticate.js";
import { conflict, notFound, parse, unprocessable } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { fieldOut } from "../http/serializers.js";
import { datasetFor, type DatasetRow } from "../auth/policies.js";
import { isUniqueViolation } from "../db/introspect.js";
import { nameSchema, rejectNullKeys, titleSchema } from "../settings/common.js";
import { FieldSettingsCreateSchema, FieldSettingsUpdateSchema, type FieldSettings } from "../settings/fields.js";
import { now } from "../clock.js";

const FieldCreate = z.object({
  name: nameSchema,
  title: titleSchema,
  required: z.boolean().nullable().optional(),
  settings: FieldSettingsCreateSchema,
});

const FieldUpdate = z.object({ title: titleSchema.optional(), settings: FieldSettingsUpdateSchema.optional() });

export type FieldRow = Selectable<FieldsTable>;

/** Loads a field (404 ``Field with id `X` not found``) and checks access to its dataset. */
export async function fieldFor(
  db: Kysely<DB>,
  user: UserRow,
  fieldId: string,
  access: "read" | "admin",
): Promise<{ field: FieldRow; dataset: DatasetRow }> {
  const field = await db.selectFrom("fields").selectAll().where("id", "=", fieldId).executeTakeFirst();
  if (!field) throw notFound(`Field with id \`${fieldId}\` not found`);
  return { field, dataset: await datasetFor(db, user, field.dataset_id, access) };
}

const duplicateName = (name: string, datasetId: string) =>
  conflict(`Field with name \`${name}\` already exists for dataset with id \`${datasetId}\``);

/** Fields (contract 3.5). */
export function fieldsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/datasets/:dataset_id/fields", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "read");
    const fields = await ctx.db
      .selectFrom("fields")
      .selectAll()
      .where("dataset_id", "=", dataset.id)
      .orderBy("inserted_at")
      .orderBy(sql`rowid`)
      .execute();
    return { items: fields.map(fieldOut) };
  });

  app.post("/api/v1/datasets/:dataset_id/fields", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const body = parse(FieldCreate, request.body);
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    if (dataset.status === "ready") throw unprocessable("Field cannot be created for a published dataset");
    const taken = await ctx.db
      .selectFrom("fields")
      .select("id")
      .where("dataset_id", "=", dataset.id)
      .where("name", "=", body.name)
      .executeTakeFirst();
    if (taken) throw duplicateName(body.name, dataset.id);
    const timestamp = now();
    const row: FieldRow = {
      id: randomUUID(),
      dataset_id: dataset.id,
      name: body.name,
      title: body.title,
      required: body.required === false ? 0 : 1,
      settings: JSON.stringify(body.settings),
      inserted_at: timestamp,
      updated_at: timestamp,
    };
    try {
      await ctx.db.insertInto("fields").values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateName(body.name, dataset.id);
      throw error;
    }
    return reply.status(201).send(fieldOut(row));
  });

  app.patch("/api/v1/fields/:field_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { field_id } = pathIds(request, "field_id");
    rejectNullKeys(request.body, ["title", "settings"]);
    const body = parse(FieldUpdate, request.body);
    const { field } = await fieldFor(ctx.db, user, field_id, "admin");
    const changes: Partial<FieldRow> = { updated_at: now() };
    if (body.title !== undefined) changes.title = body.title;
    if (body.settings !== undefined) {
      const stored = JSON.parse(field.settings) as FieldSettings;
      if (stored.type !== body.settings.type) {
        throw unprocessable(`Field type cannot be changed. Expected '${stored.type}' but got '${body.settings.type}'`);
      }
      changes.settings = JSON.stringify({ ...stored, ...body.settings });
    }
    await ctx.db.updateTable("fields").set(changes).where("id", "=", field.id).execute();
    return fieldOut({ ...field, ...changes });
  });

  app.delete("/api/v1/fields/:field_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { field_id } = pathIds(request, "field_id");
    const { field, dataset } = await fieldFor(ctx.db, user, field_id, "admin");
    if (dataset.status === "ready") throw unprocessable("Fields cannot be deleted for a published dataset");
    await ctx.db.deleteFrom("fields").where("id", "=", field.id).execute();
    return fieldOut(field);
  });
}
