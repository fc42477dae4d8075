import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { notFound } from "../../http/errors.js";
import type { WorkspaceRow } from "./find-workspace.js";

/** Removes a user from a workspace (404 when they are not a member). Returns the former member. */
export async function removeWorkspaceMember(db: Kysely<DB>, workspace: WorkspaceRow, userId: string): Promise<UserRow> {
  const member = await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
  const pair =
    member &&
    (await db
      .selectFrom("workspaces_users")
      .select("user_id")
      .where("workspace_id", "=", workspace.id)
      .where("user_id", "=", member.id)
      .executeTakeFirst());
  if (!member || !pair) throw notFound(`Workspace user with workspace_id \`${workspace.id}\` and user_id \`${userId}\` not found`);
  await db.deleteFrom("workspaces_users").where("workspace_id", "=", workspace.id).where("user_id", "=", member.id).execute();
  return member;
}
