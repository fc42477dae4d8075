import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.js";
import { datasetOut, userOut, workspaceOut } from "../http/serializers.js";
import { z } from "zod";
import { parse, uuidParam } from "../http/errors.js";
import { requireMember } from "../auth/policies.js";

const MeDatasetsQuery = z.object({
  workspace_id: uuidParam.optional(),
  name: z.string().min(1).max(200).optional(),
  status: z.enum(["draft", "ready"]).optional(),
});

export function meRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/me", async (request) => userOut(await ctx.currentUser(request)));

  app.get("/api/v1/me/workspaces", async (request) => {
    const user = await ctx.currentUser(request);
    let query = ctx.db.selectFrom("workspaces").selectAll("workspaces").orderBy("workspaces.name");
    if (user.role !== "owner") {
      query = query.innerJoin("workspaces_users as wu", "wu.workspace_id", "workspaces.id").where("wu.user_id", "=", user.id);
    }
    return { items: (await query.execute()).map(workspaceOut) };
  });

  app.get("/api/v1/me/datasets", async (request) => {
    const user = await ctx.currentUser(request);
    const filters = parse(MeDatasetsQuery, request.query, "query");
    // Contract 3.4: filtering by a workspace the caller is not a member of is refused.
    if (filters.workspace_id !== undefined) await requireMember(ctx.db, user, filters.workspace_id);
    let query = ctx.db.selectFrom("datasets").selectAll("datasets").orderBy("datasets.inserted_at");
    if (user.role !== "owner") {
      query = query.innerJoin("workspaces_users as wu", "wu.workspace_id", "datasets.workspace_id").where("wu.user_id", "=", user.id);
    }
    if (filters.workspace_id !== undefined) query = query.where("datasets.workspace_id", "=", filters.workspace_id);
    if (filters.name !== undefined) query = query.where("datasets.name", "=", filters.name);
    if (filters.status !== undefined) query = query.where("datasets.status", "=", filters.status);
    return { items: (await query.execute()).map(datasetOut) };
  });
}
