import type { FastifyInstance } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { forbidden, parse, uuidParam } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { userOut, workspaceOut } from "../http/serializers.js";
import { userVisibleTo } from "../security/redact.js";
import { isMember, requireMember, requireOwner } from "../auth/policies.js";
import { workspaceNameSchema } from "../settings/common.js";
import { findWorkspace } from "../workspaces/use-cases/find-workspace.js";
import { createWorkspace } from "../workspaces/use-cases/create-workspace.js";
import { deleteWorkspace } from "../workspaces/use-cases/delete-workspace.js";
import { listWorkspaceMembers } from "../workspaces/use-cases/list-workspace-members.js";
import { addWorkspaceMember } from "../workspaces/use-cases/add-workspace-member.js";
import { removeWorkspaceMember } from "../workspaces/use-cases/remove-workspace-member.js";

/** `id`: chosen by the client (the SDK sends `Workspace(id=...)`'s id); a new one when absent. */
const WorkspaceCreate = z.object({ id: uuidParam.nullable().optional(), name: workspaceNameSchema });
const WorkspaceUserCreate = z.object({ user_id: uuidParam });

/** Workspaces and their members (contract 3.3, 1.4, 1.5). `/me/workspaces` lives in me.ts. */
export function workspacesRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post("/api/v1/workspaces", async (request, reply) => {
    requireOwner(await ctx.currentUser(request));
    const body = parse(WorkspaceCreate, request.body);
    const row = await createWorkspace(ctx.db, body);
    return reply.status(201).send(workspaceOut(row));
  });

  app.get("/api/v1/workspaces/:workspace_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { workspace_id } = pathIds(request, "workspace_id");
    const workspace = await findWorkspace(ctx.db, workspace_id);
    await requireMember(ctx.db, user, workspace.id);
    return workspaceOut(workspace);
  });

  app.delete("/api/v1/workspaces/:workspace_id", async (request) => {
    requireOwner(await ctx.currentUser(request));
    const { workspace_id } = pathIds(request, "workspace_id");
    const workspace = await findWorkspace(ctx.db, workspace_id);
    await deleteWorkspace(ctx.db, workspace);
    return workspaceOut(workspace);
  });

  app.get("/api/v1/workspaces/:workspace_id/users", async (request) => {
    const user = await ctx.currentUser(request);
    const { workspace_id } = pathIds(request, "workspace_id");
    const workspace = await findWorkspace(ctx.db, workspace_id);
    if (user.role === "annotator" || !(await isMember(ctx.db, user, workspace.id))) throw forbidden();
    const users = await listWorkspaceMembers(ctx.db, workspace.id);
    return { items: users.map((u) => userVisibleTo(user, u)) };
  });

  app.post("/api/v1/workspaces/:workspace_id/users", async (request, reply) => {
    requireOwner(await ctx.currentUser(request));
    const { workspace_id } = pathIds(request, "workspace_id");
    const body = parse(WorkspaceUserCreate, request.body);
    const workspace = await findWorkspace(ctx.db, workspace_id);
    const member = await addWorkspaceMember(ctx.db, workspace, body.user_id);
    return reply.status(201).send(userOut(member));
  });

  app.delete("/api/v1/workspaces/:workspace_id/users/:user_id", async (request) => {
    const user = await ctx.currentUser(request);
    const { workspace_id, user_id } = pathIds(request, "workspace_id", "user_id");
    const workspace = await findWorkspace(ctx.db, workspace_id);
    if (user.role !== "owner" && !(user.role === "admin" && (await isMember(ctx.db, user, workspace.id)))) throw forbidden();
    const member = await removeWorkspaceMember(ctx.db, workspace, user_id);
    return userVisibleTo(user, member);
  });
}
