import type { Kysely, Selectable } from "kysely";
import type { DB, WorkspacesTable } from "../../db/schema.js";
import { notFound } from "../../http/errors.js";

export type WorkspaceRow = Selectable<WorkspacesTable>;

/** Loads a workspace (404 ``Workspace with id `X` not found``). */
export async function findWorkspace(db: Kysely<DB>, id: string): Promise<WorkspaceRow> {
  const workspace = await db.selectFrom("workspaces").selectAll().where("id", "=", id).executeTakeFirst();
  if (!workspace) throw notFound(`Workspace with id \`${id}\` not found`);
  return workspace;
}
