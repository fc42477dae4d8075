import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";

/** The workspace's members in the order they joined. */
export async function listWorkspaceMembers(db: Kysely<DB>, workspaceId: string): Promise<UserRow[]> {
  return db
    .selectFrom("users")
    .innerJoin("workspaces_users as wu", "wu.user_id", "users.id")
    .selectAll("users")
    .where("wu.workspace_id", "=", workspaceId)
    .orderBy("wu.inserted_at")
    .orderBy("users.username")
    .execute();
}
