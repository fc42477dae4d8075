import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.js";
import { datasetOut, userOut, workspaceOut } from "../http/serializers.js";

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
    let query = ctx.db.selectFrom("datasets").selectAll("datasets").orderBy("datasets.inserted_at");
    if (user.role !== "owner") {
      query = query.innerJoin("workspaces_users as wu", "wu.workspace_id", "datasets.workspace_id").where("wu.user_id", "=", user.id);
    }
    return { items: (await query.execute()).map(datasetOut) };
  });
}
