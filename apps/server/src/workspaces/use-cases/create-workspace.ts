import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { writeUnique } from "../../db/introspect.js";
import { conflict } from "../../http/errors.js";
import { now } from "../../clock.js";
import type { WorkspaceRow } from "./find-workspace.js";

const duplicateName = (name: string) => conflict(`Workspace name \`${name}\` is not unique`);

/** Creates a workspace (409 for a taken name or id); `id` is the client's choice when given. */
export async function createWorkspace(db: Kysely<DB>, input: { id?: string | null; name: string }): Promise<WorkspaceRow> {
  if (await db.selectFrom("workspaces").select("id").where("name", "=", input.name).executeTakeFirst()) throw duplicateName(input.name);
  if (input.id && (await db.selectFrom("workspaces").select("id").where("id", "=", input.id.toLowerCase()).executeTakeFirst()))
    throw conflict(`Workspace with id \`${input.id}\` already exists`);
  const timestamp = now();
  const row = { id: input.id?.toLowerCase() ?? randomUUID(), name: input.name, inserted_at: timestamp, updated_at: timestamp };
  await writeUnique(
    () => db.insertInto("workspaces").values(row).execute(),
    () => duplicateName(input.name),
  );
  return row;
}
