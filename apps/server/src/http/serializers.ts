import type { Selectable } from "kysely";
import type { DatasetsTable, UsersTable, WorkspacesTable } from "../db/schema.js";

/** Wire shapes of contract section 3. */
export const userOut = (u: Selectable<UsersTable>) => ({
  id: u.id,
  first_name: u.first_name,
  last_name: u.last_name,
  username: u.username,
  role: u.role,
  api_key: u.api_key,
  inserted_at: u.inserted_at,
  updated_at: u.updated_at,
});

export const workspaceOut = (w: Selectable<WorkspacesTable>) => ({ id: w.id, name: w.name, inserted_at: w.inserted_at, updated_at: w.updated_at });

export const datasetOut = (d: Selectable<DatasetsTable>) => ({
  id: d.id,
  name: d.name,
  guidelines: d.guidelines,
  allow_extra_metadata: Boolean(d.allow_extra_metadata),
  status: d.status,
  distribution: JSON.parse(d.distribution) as { strategy: string; min_submitted: number },
  metadata: d.metadata === null ? null : (JSON.parse(d.metadata) as Record<string, unknown>),
  workspace_id: d.workspace_id,
  last_activity_at: d.last_activity_at,
  inserted_at: d.inserted_at,
  updated_at: d.updated_at,
});
