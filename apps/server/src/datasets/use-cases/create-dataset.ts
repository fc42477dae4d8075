import { randomUUID } from "node:crypto";
import type { UserRow } from "../../auth/authenticate.js";
import { requireAdminMember, type DatasetRow } from "../../auth/policies.js";
import { writeUnique } from "../../db/introspect.js";
import { unprocessable } from "../../http/errors.js";
import { now } from "../../clock.js";
import type { ChangeDeps } from "../../use-case-deps.js";
import { duplicateDatasetName, type Distribution } from "../dataset-rules.js";

export interface DatasetInput {
  name: string;
  guidelines: string | null;
  allow_extra_metadata: boolean;
  distribution: Distribution;
  metadata: Record<string, unknown> | null;
  workspace_id: string;
}

/** Creates a draft dataset in a workspace (403 for a non-member admin even for an unknown workspace, 422, 409). */
export async function createDataset({ db, events }: ChangeDeps, user: UserRow, input: DatasetInput): Promise<DatasetRow> {
  // Authorization runs first: a non-member admin gets 403 even for an unknown workspace.
  await requireAdminMember(db, user, input.workspace_id);
  const workspace = await db.selectFrom("workspaces").select("id").where("id", "=", input.workspace_id).executeTakeFirst();
  if (!workspace) throw unprocessable(`Workspace with id \`${input.workspace_id}\` not found`);
  const taken = await db
    .selectFrom("datasets")
    .select("id")
    .where("workspace_id", "=", input.workspace_id)
    .where("name", "=", input.name)
    .executeTakeFirst();
  if (taken) throw duplicateDatasetName(input.name, input.workspace_id);
  const timestamp = now();
  const row: DatasetRow = {
    id: randomUUID(),
    name: input.name,
    guidelines: input.guidelines,
    allow_extra_metadata: input.allow_extra_metadata ? 1 : 0,
    status: "draft",
    distribution: JSON.stringify(input.distribution),
    metadata: input.metadata === null ? null : JSON.stringify(input.metadata),
    workspace_id: input.workspace_id,
    inserted_at: timestamp,
    updated_at: timestamp,
    last_activity_at: timestamp,
  };
  await writeUnique(
    () => db.insertInto("datasets").values(row).execute(),
    () => duplicateDatasetName(input.name, input.workspace_id),
  );
  events.emit("dataset.created", { datasetId: row.id });
  return row;
}
