import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import type { WorkspaceRow } from "./find-workspace.js";

/**
 * The workspaces a user reaches: every one for an owner, else those they are a member of. `/me/workspaces`
 * lists them by name, `/users/{id}/workspaces` oldest first.
 */
export async function listUserWorkspaces(db: Kysely<DB>, user: UserRow, order: "name" | "creation"): Promise<WorkspaceRow[]> {
  let query = db.selectFrom("workspaces").selectAll("workspaces");
  query = order === "name" ? query.orderBy("workspaces.name") : query.orderBy("workspaces.inserted_at").orderBy("workspaces.name");
  if (user.role !== "owner") {
    query = query.innerJoin("workspaces_users as wu", "wu.workspace_id", "workspaces.id").where("wu.user_id", "=", user.id);
  }
  return query.execute();
}
