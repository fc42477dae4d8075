import type { Generated } from "kysely";

/** Row types of the store. Timestamps are ISO-8601 strings without timezone (contract conventions). */
export interface UsersTable {
  id: string;
  username: string;
  first_name: string;
  last_name: string | null;
  role: "owner" | "admin" | "annotator";
  password_hash: string;
  api_key: string;
  inserted_at: string;
  updated_at: string;
}

export interface WorkspacesTable {
  id: string;
  name: string;
  inserted_at: string;
  updated_at: string;
}

export interface WorkspacesUsersTable {
  workspace_id: string;
  user_id: string;
  inserted_at: string;
}

export interface DatasetsTable {
  id: string;
  name: string;
  guidelines: string | null;
  allow_extra_metadata: number;
  status: "draft" | "ready";
  distribution: string;
  metadata: string | null;
  workspace_id: string;
  inserted_at: string;
  updated_at: string;
  last_activity_at: string;
}

export interface ServerSettingsTable {
  key: string;
  value: string;
}

export interface MigrationsSeen {
  id: Generated<number>;
}

export interface DB {
  users: UsersTable;
  workspaces: WorkspacesTable;
  workspaces_users: WorkspacesUsersTable;
  datasets: DatasetsTable;
  server_settings: ServerSettingsTable;
}
