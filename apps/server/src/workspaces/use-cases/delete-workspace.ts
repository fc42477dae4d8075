import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { conflict } from "../../http/errors.js";
import type { WorkspaceRow } from "./find-workspace.js";

/** Deletes a workspace without datasets (409 while any dataset is linked). */
export async function deleteWorkspace(db: Kysely<DB>, workspace: WorkspaceRow): Promise<void> {
  const dataset = await db.selectFrom("datasets").select("id").where("workspace_id", "=", workspace.id).executeTakeFirst();
  if (dataset) throw conflict(`Cannot delete the workspace ${workspace.id}. This workspace has some datasets linked`);
  await db.deleteFrom("workspaces").where("id", "=", workspace.id).execute();
}
