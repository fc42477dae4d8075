import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import type { UserRow } from "../auth/authenticate.js";
import { unprocessable } from "../http/errors.js";
import type { DatasetRow } from "./dataset-schema.js";

/**
 * Who an import may write responses for (issue 28), by the bulk routes (user ids) and by file uploads
 * (usernames, `attributableUsernames`): the owner, for any existing user (the SDK's own suite logs
 * responses of users outside the workspace as an owner, as the real server allows); anybody else
 * (an admin) only for members of the dataset's workspace, so nobody can write answers in the name of
 * a user they do not manage and who cannot even see the dataset. Unknown user ids are left to the
 * ingestion's own "not found" error.
 */
const attributesToAnyone = (user: Pick<UserRow, "role">): boolean => user.role === "owner";

/**
 * The users a file import started by `user` may attribute responses to, by username: every user for
 * the owner, the members of the dataset's workspace for anybody else (`user` null: the uploader no
 * longer exists, so nobody). A name outside it is a row failure, the same whether or not such a user
 * exists elsewhere (an admin cannot learn the usernames of other workspaces from it).
 */
export async function attributableUsernames(
  db: Kysely<DB>,
  user: Pick<UserRow, "role"> | null,
  dataset: Pick<DatasetRow, "workspace_id">,
): Promise<Map<string, string>> {
  if (user === null) return new Map();
  const rows = attributesToAnyone(user)
    ? await db.selectFrom("users").select(["id", "username"]).execute()
    : await db
        .selectFrom("users")
        .innerJoin("workspaces_users", "workspaces_users.user_id", "users.id")
        .select(["users.id", "users.username"])
        .where("workspaces_users.workspace_id", "=", dataset.workspace_id)
        .execute();
  return new Map(rows.map((r) => [r.username, r.id]));
}

export async function requireAttributableResponses(
  db: Kysely<DB>,
  user: UserRow,
  dataset: DatasetRow,
  items: readonly { responses?: readonly { user_id: string }[] | null }[],
): Promise<void> {
  if (attributesToAnyone(user)) return;
  const userIds = [...new Set(items.flatMap((item) => (item.responses ?? []).map((r) => r.user_id)))];
  if (userIds.length === 0) return;
  const allowed = new Set<string>();
  for (let i = 0; i < userIds.length; i += 500) {
    const chunk = userIds.slice(i, i + 500);
    const members = await db
      .selectFrom("workspaces_users")
      .select("user_id")
      .where("workspace_id", "=", dataset.workspace_id)
      .where("user_id", "in", chunk)
      .execute();
    for (const m of members) allowed.add(m.user_id);
    const unknown = await db.selectFrom("users").select("id").where("id", "in", chunk).execute();
    const existing = new Set(unknown.map((u) => u.id));
    for (const id of chunk) if (!existing.has(id)) allowed.add(id);
  }
  const position = items.findIndex((item) => (item.responses ?? []).some((r) => !allowed.has(r.user_id)));
  if (position === -1) return;
  const outsider = items[position]!.responses!.find((r) => !allowed.has(r.user_id))!.user_id;
  throw unprocessable(
    `Record at position ${position} is not valid because user with id \`${outsider}\` is not a member of the dataset's workspace: admins can only add responses for its members`,
  );
}
