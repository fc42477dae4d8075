import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { type Kysely, sql } from "kysely";
import { z } from "zod";
import type { AppContext } from "../context.js";
import type { DatasetsTable, DB } from "../db/schema.js";
import { businessError, conflict, parse, unprocessable, uuidParam } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { datasetOut } from "../http/serializers.js";
import { datasetFor, requireAdminMember } from "../auth/policies.js";
import { isUniqueViolation, tableExists } from "../db/introspect.js";
import { nameSchema, rejectNullKeys } from "../settings/common.js";
import { now } from "../clock.js";

export const DistributionSchema = z.object({
  strategy: z.literal("overlap"),
  min_submitted: z.number().int().min(1).max(1_000_000).default(1),
});
export type Distribution = z.infer<typeof DistributionSchema>;

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

export const DISTRIBUTION_WITH_RESPONSES_MESSAGE = "Distribution settings cannot be modified for a published dataset with responses";

const duplicateName = (datasetName: string, workspaceId: string) =>
  conflict(`Dataset with name \`${datasetName}\` already exists for workspace with id \`${workspaceId}\``);

/** True when any response exists for a record of the dataset (false before the records migration lands). */
export async function datasetHasResponses(db: Kysely<DB>, datasetId: string): Promise<boolean> {
  if (!(await tableExists(db, "responses")) || !(await tableExists(db, "records"))) return false;
  const result = await sql<{ found: number }>`select exists(
    select 1 from responses join records on records.id = responses.record_id where records.dataset_id = ${datasetId}
  ) as found`.execute(db);
  return (result.rows[0]?.found ?? 0) === 1;
}

/** Datasets (contract 3.4). `/me/datasets` lives in me.ts. */
export function datasetsRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post("/api/v1/datasets", async (request, reply) => {
    const user = await ctx.currentUser(request);
    const body = parse(DatasetCreate, request.body);
    // Authorization runs first: a non-member admin gets 403 even for an unknown workspace.
    await requireAdminMember(ctx.db, user, body.workspace_id);
    const workspace = await ctx.db.selectFrom("workspaces").select("id").where("id", "=", body.workspace_id).executeTakeFirst();
    if (!workspace) throw unprocessable(`Workspace with id \`${body.workspace_id}\` not found`);
    const taken = await ctx.db
      .selectFrom("datasets")
      .select("id")
      .where("workspace_id", "=", body.workspace_id)
      .where("name", "=", body.name)
      .executeTakeFirst();
    if (taken) throw duplicateName(body.name, body.workspace_id);
    const timestamp = now();
    const row = {
      id: randomUUID(),
      name: body.name,
      guidelines: body.guidelines,
      allow_extra_metadata: body.allow_extra_metadata ? 1 : 0,
      status: "draft" as const,
      distribution: JSON.stringify(body.distribution),
      metadata: body.metadata === null ? null : JSON.stringify(body.metadata),
      workspace_id: body.workspace_id,
      inserted_at: timestamp,
      updated_at: timestamp,
      last_activity_at: timestamp,
    };
    try {
      await ctx.db.insertInto("datasets").values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateName(body.name, body.workspace_id);
      throw error;
    }
    ctx.events.emit("dataset.created", { datasetId: row.id });
    return reply.status(201).send(datasetOut(row));
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
    const changes: Partial<DatasetsTable> = {};
    if (body.name !== undefined && body.name !== dataset.name) {
      const taken = await ctx.db
        .selectFrom("datasets")
        .select("id")
        .where("workspace_id", "=", dataset.workspace_id)
        .where("name", "=", body.name)
        .executeTakeFirst();
      if (taken) throw duplicateName(body.name, dataset.workspace_id);
      changes.name = body.name;
    }
    if (body.guidelines !== undefined) changes.guidelines = body.guidelines;
    if (body.allow_extra_metadata !== undefined) changes.allow_extra_metadata = body.allow_extra_metadata ? 1 : 0;
    if (body.metadata !== undefined) changes.metadata = body.metadata === null ? null : JSON.stringify(body.metadata);
    if (body.distribution !== undefined) {
      const next = JSON.stringify(body.distribution);
      const current = JSON.parse(dataset.distribution) as Distribution;
      const changed = current.strategy !== body.distribution.strategy || current.min_submitted !== body.distribution.min_submitted;
      if (changed && (await datasetHasResponses(ctx.db, dataset.id))) {
        throw businessError("update_distribution_with_existing_responses", DISTRIBUTION_WITH_RESPONSES_MESSAGE);
      }
      changes.distribution = next;
    }
    changes.updated_at = now();
    try {
      await ctx.db.updateTable("datasets").set(changes).where("id", "=", dataset.id).execute();
    } catch (error) {
      if (isUniqueViolation(error) && changes.name !== undefined) throw duplicateName(changes.name, dataset.workspace_id);
      throw error;
    }
    ctx.events.emit("dataset.updated", { datasetId: dataset.id });
    return datasetOut({ ...dataset, ...changes });
  });

  app.delete("/api/v1/datasets/:dataset_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    await ctx.db.transaction().execute(async (trx) => {
      // Records (and, through their foreign keys, responses/suggestions/vectors) go explicitly in case a
      // later table forgets its cascade; settings tables cascade from datasets (migration 0002).
      if (await tableExists(trx, "records")) await sql`delete from records where dataset_id = ${dataset.id}`.execute(trx);
      await trx.deleteFrom("datasets").where("id", "=", dataset.id).execute();
    });
    ctx.events.emit("dataset.deleted", { id: dataset.id });
    return datasetOut(dataset);
  });

  app.put("/api/v1/datasets/:dataset_id/publish", async (request) => {
    const user = await ctx.currentUser(request);
    const { dataset_id } = pathIds(request, "dataset_id");
    const dataset = await datasetFor(ctx.db, user, dataset_id, "admin");
    if (dataset.status === "ready") throw unprocessable("Dataset is already published");
    // At least one field, required or not (the reference server since 2.4: a record needs a value for one of them).
    const field = await ctx.db.selectFrom("fields").select("id").where("dataset_id", "=", dataset.id).executeTakeFirst();
    if (!field) throw unprocessable("Dataset cannot be published without fields");
    const requiredQuestion = await ctx.db
      .selectFrom("questions")
      .select("id")
      .where("dataset_id", "=", dataset.id)
      .where("required", "=", 1)
      .executeTakeFirst();
    if (!requiredQuestion) throw unprocessable("Dataset cannot be published without required questions");
    const timestamp = now();
    await ctx.db.updateTable("datasets").set({ status: "ready", updated_at: timestamp }).where("id", "=", dataset.id).execute();
    ctx.events.emit("dataset.published", { datasetId: dataset.id });
    return datasetOut({ ...dataset, status: "ready", updated_at: timestamp });
  });
}
