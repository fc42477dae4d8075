import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { UserRow } from "../../auth/authenticate.js";
import type { DatasetRow } from "../../auth/policies.js";

export interface DatasetFilters {
  workspace_id?: string;
  name?: string;
  status?: "draft" | "ready";
}

/** The datasets a user reaches (every one for an owner, else those of their workspaces), oldest first, filtered. */
export async function listUserDatasets(db: Kysely<DB>, user: UserRow, filters: DatasetFilters): Promise<DatasetRow[]> {
  let query = db.selectFrom("datasets").selectAll("datasets").orderBy("datasets.inserted_at");
  if (user.role !== "owner") {
    query = query.innerJoin("workspaces_users as wu", "wu.workspace_id", "datasets.workspace_id").where("wu.user_id", "=", user.id);
  }
  if (filters.workspace_id !== undefined) query = query.where("datasets.workspace_id", "=", filters.workspace_id);
  if (filters.name !== undefined) query = query.where("datasets.name", "=", filters.name);
  if (filters.status !== undefined) query = query.where("datasets.status", "=", filters.status);
  return query.execute();
}
