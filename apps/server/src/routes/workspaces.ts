import { randomUUID } from "node:crypto";
import type { FastifyInstance } from "fastify";
import type { Kysely, Selectable } from "kysely";
import { z } from "zod";
import type { AppContext } from "../context.js";
import type { DB, WorkspacesTable } from "../db/schema.js";
import { conflict, forbidden, notFound, parse, unprocessable, uuidParam } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { userOut, workspaceOut } from "../http/serializers.js";
import { userVisibleTo } from "../security/redact.js";
import { isMember, requireMember, requireOwner } from "../auth/policies.js";
import { isUniqueViolation } from "../db/introspect.js";
import { now } from "../clock.js";
import { workspaceNameSchema } from "../settings/common.js";

/** `id`: chosen by the client (the SDK sends `Workspace(id=...)`'s id); a new one when absent. */
const WorkspaceCreate = z.object({ id: uuidParam.nullable().optional(), name: workspaceNameSchema });
const WorkspaceUserCreate = z.object({ user_id: uuidParam });

export async function workspaceById(db: Kysely<DB>, id: string): Promise<Selectable<WorkspacesTable>> {
  const workspace = await db.selectFrom("workspaces").selectAll().where("id", "=", id).executeTakeFirst();
  if (!workspace) throw notFound(`Workspace with id \`${id}\` not found`);
  return workspace;
}

const duplicateName = (name: string) => conflict(`Workspace name \`${name}\` is not unique`);

/** Workspaces and their members (contract 3.3, 1.4, 1.5). `/me/workspaces` lives in me.ts. */
export function workspacesRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post("/api/v1/workspaces", async (request, reply) => {
    requireOwner(await ctx.currentUser(request));
    const body = parse(WorkspaceCreate, request.body);
    if (await ctx.db.selectFrom("workspaces").select("id").where("name", "=", body.name).executeTakeFirst()) throw duplicateName(body.name);
    if (body.id && (await ctx.db.selectFrom("workspaces").select("id").where("id", "=", body.id.toLowerCase()).executeTakeFirst()))
      throw conflict(`Workspace with id \`${body.id}\` already exists`);
    const timestamp = now();
    const row = { id: body.id?.toLowerCase() ?? randomUUID(), name: body.name, inserted_at: timestamp, updated_at: timestamp };
    try {
      await ctx.db.insertInto("workspaces").values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateName(body.name);
      throw error;
    }
    return reply.status(201).send(workspaceOut(row));
  });

  app.get("/api/v1/workspaces/:workspace_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { workspace_id } = pathIds(request, "workspace_id");
    const workspace = await workspaceById(ctx.db, workspace_id);
    await requireMember(ctx.db, user, workspace.id);
    return workspaceOut(workspace);
  });

  app.delete("/api/v1/workspaces/:workspace_id", async (request) => {
    requireOwner(await ctx.currentUser(request));
    const { workspace_id } = pathIds(request, "workspace_id");
    const workspace = await workspaceById(ctx.db, workspace_id);
    const dataset = await ctx.db.selectFrom("datasets").select("id").where("workspace_id", "=", workspace.id).executeTakeFirst();
    if (dataset) throw conflict(`Cannot delete the workspace ${workspace.id}. This workspace has some datasets linked`);
    await ctx.db.deleteFrom("workspaces").where("id", "=", workspace.id).execute();
    return workspaceOut(workspace);
  });

  app.get("/api/v1/workspaces/:workspace_id/users", async (request) => {
    const user = await ctx.currentUser(request);
    const { workspace_id } = pathIds(request, "workspace_id");
    const workspace = await workspaceById(ctx.db, workspace_id);
    if (user.role === "annotator" || !(await isMember(ctx.db, user, workspace.id))) throw forbidden();
    const users = await ctx.db
      .selectFrom("users")
      .innerJoin("workspaces_users as wu", "wu.user_id", "users.id")
      .selectAll("users")
      .where("wu.workspace_id", "=", workspace.id)
      .orderBy("wu.inserted_at")
      .orderBy("users.username")
      .execute();
    return { items: users.map((u) => userVisibleTo(user, u)) };
  });

  app.post("/api/v1/workspaces/:workspace_id/users", async (request, reply) => {
    requireOwner(await ctx.currentUser(request));
    const { workspace_id } = pathIds(request, "workspace_id");
    const body = parse(WorkspaceUserCreate, request.body);
    const workspace = await workspaceById(ctx.db, workspace_id);
    const member = await ctx.db.selectFrom("users").selectAll().where("id", "=", body.user_id).executeTakeFirst();
    if (!member) throw unprocessable(`User with id \`${body.user_id}\` not found`);
    const pairTaken = () => conflict(`Workspace user with workspace_id \`${workspace.id}\` and user_id \`${member.id}\` is not unique`);
    const existing = await ctx.db
      .selectFrom("workspaces_users")
      .select("user_id")
      .where("workspace_id", "=", workspace.id)
      .where("user_id", "=", member.id)
      .executeTakeFirst();
    if (existing) throw pairTaken();
    try {
      await ctx.db.insertInto("workspaces_users").values({ workspace_id: workspace.id, user_id: member.id, inserted_at: now() }).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw pairTaken();
      throw error;
    }
    return reply.status(201).send(userOut(member));
  });

  app.delete("/api/v1/workspaces/:workspace_id/users/:user_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { workspace_id, user_id } = pathIds(request, "workspace_id", "user_id");
    const workspace = await workspaceById(ctx.db, workspace_id);
    if (user.role !== "owner" && !(user.role === "admin" && (await isMember(ctx.db, user, workspace.id)))) throw forbidden();
    const member = await ctx.db.selectFrom("users").selectAll().where("id", "=", user_id).executeTakeFirst();
    const pair =
      member &&
      (await ctx.db
        .selectFrom("workspaces_users")
        .select("user_id")
        .where("workspace_id", "=", workspace.id)
        .where("user_id", "=", member.id)
        .executeTakeFirst());
    if (!member || !pair) throw notFound(`Workspace user with workspace_id \`${workspace.id}\` and user_id \`${user_id}\` not found`);
    await ctx.db.deleteFrom("workspaces_users").where("workspace_id", "=", workspace.id).where("user_id", "=", member.id).execute();
    return userVisibleTo(user, member);
  });
}
