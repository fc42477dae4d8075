import type { Kysely, Selectable } from "kysely";
import type { DatasetsTable, DB } from "../db/schema.js";
import type { UserRow } from "./authenticate.js";
import { forbidden, notFound } from "../http/errors.js";

/**
 * Contract section 1.4: owners bypass membership; admins and annotators reach only workspaces
 * they belong to. Denials are the legacy 403 ForbiddenOperationError.
 */
export async function isMember(db: Kysely<DB>, user: UserRow, workspaceId: string): Promise<boolean> {
  if (user.role === "owner") return true;
  const row = await db
    .selectFrom("workspaces_users")
    .select("user_id")
    .where("workspace_id", "=", workspaceId)
    .where("user_id", "=", user.id)
    .executeTakeFirst();
  return row !== undefined;
}

export function requireOwner(user: UserRow): void {
  if (user.role !== "owner") throw forbidden();
}

/** Member of the workspace (any role). */
export async function requireMember(db: Kysely<DB>, user: UserRow, workspaceId: string): Promise<void> {
  if (!(await isMember(db, user, workspaceId))) throw forbidden();
}

/** Owner, or admin and member of the workspace (dataset writes, settings writes, records writes). */
export async function requireAdminMember(db: Kysely<DB>, user: UserRow, workspaceId: string): Promise<void> {
  if (user.role === "owner") return;
  if (user.role !== "admin" || !(await isMember(db, user, workspaceId))) throw forbidden();
}

export type DatasetRow = Selectable<DatasetsTable>;

/** Loads a dataset (404 ``Dataset with id `X` not found``) and checks the caller's access to it. */
export async function datasetFor(db: Kysely<DB>, user: UserRow, datasetId: string, access: "read" | "admin"): Promise<DatasetRow> {
  const dataset = await db.selectFrom("datasets").selectAll().where("id", "=", datasetId).executeTakeFirst();
  if (!dataset) throw notFound(`Dataset with id \`${datasetId}\` not found`);
  if (access === "read") await requireMember(db, user, dataset.workspace_id);
  else await requireAdminMember(db, user, dataset.workspace_id);
  return dataset;
}
