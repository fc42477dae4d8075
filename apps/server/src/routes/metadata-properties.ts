import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { type Kysely, type Selectable, sql } from "kysely";
import { z } from "zod";
import type { AppContext } from "../context.js";
import type { DB, MetadataPropertiesTable } from "../db/schema.js";
import type { UserRow } from "../auth/authenticate.js";
import { conflict, forbidden, notFound, parse } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { metadataPropertyOut } from "../http/serializers.js";
import { datasetFor, isMember, type DatasetRow } from "../auth/policies.js";
import { isUniqueViolation, tableExists } from "../db/introspect.js";
import { isPostgres } from "../db/dialect.js";
import { metadataNumberRange, metadataTermCounts } from "../db/postgres-queries.js";
import { rejectNullKeys, strictNameSchema, titleSchema } from "../settings/common.js";
import { allowedRolesFor, MetadataSettingsSchema, type MetadataSettings } from "../settings/metadata.js";
import { now } from "../clock.js";
import { numberRange, termMetrics } from "../records/metadata-metrics.js";
import { canSeeMetadataProperty, recordViewer } from "../records/visibility.js";

const MetadataPropertyCreate = z.object({
  name: strictNameSchema,
  title: titleSchema,
  settings: MetadataSettingsSchema,
  visible_for_annotators: z.boolean().default(true),
});

const MetadataPropertyUpdate = z.object({ title: titleSchema.optional(), visible_for_annotators: z.boolean().optional() });

export type MetadataPropertyRow = Selectable<MetadataPropertiesTable>;

/**
 * Contract 1.4 "metadata property get": owners always; admins who are members; annotators who are members
 * only when the property is visible for annotators (its allowed_roles include "annotator").
 */
export async function canReadMetadataProperty(
  db: Kysely<DB>,
  user: UserRow,
  property: MetadataPropertyRow,
  workspaceId: string,
): Promise<boolean> {
  if (user.role !== "owner" && !(await isMember(db, user, workspaceId))) return false;
  return canSeeMetadataProperty(await recordViewer(db, user, workspaceId), JSON.parse(property.allowed_roles) as string[]);
}

/** Loads a metadata property (404) and applies the get policy ("read") or the admin-member policy ("admin"). */
export async function metadataPropertyFor(
  db: Kysely<DB>,
  user: UserRow,
  id: string,
  access: "read" | "admin",
): Promise<{ property: MetadataPropertyRow; dataset: DatasetRow }> {
  const property = await db.selectFrom("metadata_properties").selectAll().where("id", "=", id).executeTakeFirst();
  if (!property) throw notFound(`Metadata property with id \`${id}\` not found`);
  if (access === "admin") return { property, dataset: await datasetFor(db, user, property.dataset_id, "admin") };
  const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", property.dataset_id).executeTakeFirstOrThrow();
  if (!(await canReadMetadataProperty(db, user, property, dataset.workspace_id))) throw forbidden();
  return { property, dataset };
}

const duplicateName = (name: string, datasetId: string) =>
  conflict(`Metadata property with name \`${name}\` already exists for dataset with id \`${datasetId}\``);

type Metrics =
  | { type: "terms"; total: number; values: { term: unknown; count: number }[] }
  | { type: "integer" | "float"; min: number | null; max: number | null };

export const TERMS_METRICS_LIMIT = 250;

/** Metrics of one property over `records.metadata` (empty metrics before the records migration lands). */
async function metricsFor(db: Kysely<DB>, property: MetadataPropertyRow): Promise<Metrics> {
  const settings = JSON.parse(property.settings) as MetadataSettings;
  const hasRecords = await tableExists(db, "records");
  if (settings.type === "terms") {
    if (!hasRecords) return { type: "terms", total: 0, values: [] };
    if (isPostgres(db)) {
      const counts = await metadataTermCounts(db, property.dataset_id, property.name);
      return { type: "terms", total: counts.length, values: counts.slice(0, TERMS_METRICS_LIMIT) };
    }
    // Kept up to date per dataset and property instead of scanning every record (records/metadata-metrics.ts).
    const counts = await termMetrics(db, property.dataset_id, property.name);
    return { type: "terms", total: counts.length, values: counts.slice(0, TERMS_METRICS_LIMIT) };
  }
  if (!hasRecords) return { type: settings.type, min: null, max: null };
  const round = (v: number | null | undefined) =>
    v === null || v === undefined ? null : settings.type === "float" ? Math.round(v * 1e5) / 1e5 : v;
  if (isPostgres(db)) {
    const range = await metadataNumberRange(db, property.dataset_id, property.name);
    return { type: settings.type, min: round(range.min), max: round(range.max) };
  }
  const range = await numberRange(db, property.dataset_id, property.name);
  return { type: settings.type, min: round(range.min), max: round(range.max) };
}

/** Metadata properties (contract 3.7). */
export function metadataPropertiesRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/me/datasets/:dataset_id/metadata-properties", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "read");
    const properties = await ctx.db
      .selectFrom("metadata_properties")
      .selectAll()
      .where("dataset_id", "=", dataset.id)
      .orderBy("inserted_at")
      .orderBy(sql`rowid`)
      .execute();
    const viewer = await recordViewer(ctx.db, user, dataset.workspace_id);
    const visible = properties.filter((p) => canSeeMetadataProperty(viewer, JSON.parse(p.allowed_roles) as string[]));
    return { items: visible.map(metadataPropertyOut) };
  });

  app.post("/api/v1/datasets/:dataset_id/metadata-properties", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const body = parse(MetadataPropertyCreate, request.body);
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    const taken = await ctx.db
      .selectFrom("metadata_properties")
      .select("id")
      .where("dataset_id", "=", dataset.id)
      .where("name", "=", body.name)
      .executeTakeFirst();
    if (taken) throw duplicateName(body.name, dataset.id);
    const timestamp = now();
    const row: MetadataPropertyRow = {
      id: randomUUID(),
      dataset_id: dataset.id,
      name: body.name,
      title: body.title,
      settings: JSON.stringify(body.settings),
      allowed_roles: JSON.stringify(allowedRolesFor(body.visible_for_annotators)),
      inserted_at: timestamp,
      updated_at: timestamp,
    };
    try {
      await ctx.db.insertInto("metadata_properties").values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateName(body.name, dataset.id);
      throw error;
    }
    return reply.status(201).send(metadataPropertyOut(row));
  });

  app.get("/api/v1/metadata-properties/:metadata_property_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { metadata_property_id } = pathIds(request, "metadata_property_id");
    return metadataPropertyOut((await metadataPropertyFor(ctx.db, user, metadata_property_id, "read")).property);
  });

  app.get("/api/v1/metadata-properties/:metadata_property_id/metrics", async (request) => {
    const user = await ctx.currentUser(request);
    const { metadata_property_id } = pathIds(request, "metadata_property_id");
    const { property } = await metadataPropertyFor(ctx.db, user, metadata_property_id, "read");
    return metricsFor(ctx.db, property);
  });

  app.patch("/api/v1/metadata-properties/:metadata_property_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { metadata_property_id } = pathIds(request, "metadata_property_id");
    rejectNullKeys(request.body, ["title", "visible_for_annotators"]);
    const body = parse(MetadataPropertyUpdate, request.body);
    const { property } = await metadataPropertyFor(ctx.db, user, metadata_property_id, "admin");
    const changes: Partial<MetadataPropertyRow> = { updated_at: now() };
    if (body.title !== undefined) changes.title = body.title;
    if (body.visible_for_annotators !== undefined) changes.allowed_roles = JSON.stringify(allowedRolesFor(body.visible_for_annotators));
    await ctx.db.updateTable("metadata_properties").set(changes).where("id", "=", property.id).execute();
    return metadataPropertyOut({ ...property, ...changes });
  });

  app.delete("/api/v1/metadata-properties/:metadata_property_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { metadata_property_id } = pathIds(request, "metadata_property_id");
    const { property } = await metadataPropertyFor(ctx.db, user, metadata_property_id, "admin");
    await ctx.db.deleteFrom("metadata_properties").where("id", "=", property.id).execute();
    return metadataPropertyOut(property);
  });
}
