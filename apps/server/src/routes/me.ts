import type { FastifyInstance } from "fastify";
import type { AppContext } from "../context.js";
import { datasetOut, userOut, workspaceOut } from "../http/serializers.js";
import { z } from "zod";
import { parse, uuidParam } from "../http/errors.js";
import { requireMember } from "../auth/policies.js";
import { listUserDatasets } from "../datasets/use-cases/list-user-datasets.js";
import { listUserWorkspaces } from "../workspaces/use-cases/list-user-workspaces.js";

const MeDatasetsQuery = z.object({
  workspace_id: uuidParam.optional(),
  name: z.string().min(1).max(200).optional(),
  status: z.enum(["draft", "ready"]).optional(),
});

export function meRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get("/api/v1/me", async (request) => userOut(await ctx.currentUser(request)));

  app.get("/api/v1/me/workspaces", async (request) => {
    const user = await ctx.currentUser(request);
    return { items: (await listUserWorkspaces(ctx.db, user, "name")).map(workspaceOut) };
  });

  app.get("/api/v1/me/datasets", async (request) => {
    const user = await ctx.currentUser(request);
    const filters = parse(MeDatasetsQuery, request.query, "query");
    // Contract 3.4: filtering by a workspace the caller is not a member of is refused.
    if (filters.workspace_id !== undefined) await requireMember(ctx.db, user, filters.workspace_id);
    return { items: (await listUserDatasets(ctx.db, user, filters)).map(datasetOut) };
  });
}
