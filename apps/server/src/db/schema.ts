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

export interface FieldsTable {
  id: string;
  dataset_id: string;
  name: string;
  title: string;
  required: number;
  /** JSON, the wire shape of the field settings (contract 3.5). */
  settings: string;
  inserted_at: string;
  updated_at: string;
}

export interface QuestionsTable {
  id: string;
  dataset_id: string;
  name: string;
  title: string;
  description: string | null;
  required: number;
  /** JSON, the wire shape of the question settings (contract 3.6). */
  settings: string;
  inserted_at: string;
  updated_at: string;
}

export interface MetadataPropertiesTable {
  id: string;
  dataset_id: string;
  name: string;
  title: string;
  /** JSON, the wire shape of the metadata settings (contract 3.7). */
  settings: string;
  /** JSON array of roles: ["admin","annotator"] when visible for annotators, else ["admin"]. */
  allowed_roles: string;
  inserted_at: string;
  updated_at: string;
}

export interface VectorsSettingsTable {
  id: string;
  dataset_id: string;
  name: string;
  title: string;
  dimensions: number;
  inserted_at: string;
  updated_at: string;
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
  fields: FieldsTable;
  questions: QuestionsTable;
  metadata_properties: MetadataPropertiesTable;
  vectors_settings: VectorsSettingsTable;
  server_settings: ServerSettingsTable;
}
