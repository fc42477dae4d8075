import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import { writeUnique } from "../../db/introspect.js";
import { conflict, unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import type { WorkspaceRow } from "./find-workspace.js";

/** Adds a user to a workspace (422 for an unknown user, 409 when already a member). Returns the member. */
export async function addWorkspaceMember(db: Kysely<DB>, workspace: WorkspaceRow, userId: string): Promise<UserRow> {
  const member = await db.selectFrom("users").selectAll().where("id", "=", userId).executeTakeFirst();
  if (!member) throw unprocessable(`User with id \`${userId}\` not found`);
  const pairTaken = () => conflict(`Workspace user with workspace_id \`${workspace.id}\` and user_id \`${member.id}\` is not unique`);
  const existing = await db
    .selectFrom("workspaces_users")
    .select("user_id")
    .where("workspace_id", "=", workspace.id)
    .where("user_id", "=", member.id)
    .executeTakeFirst();
  if (existing) throw pairTaken();
  await writeUnique(
    () => db.insertInto("workspaces_users").values({ workspace_id: workspace.id, user_id: member.id, inserted_at: now() }).execute(),
    pairTaken,
  );
  return member;
}
