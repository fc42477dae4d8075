import type { Selectable } from "kysely";
import type {
  DatasetsTable,
  FieldsTable,
  MetadataPropertiesTable,
  QuestionsTable,
  UsersTable,
  VectorsSettingsTable,
  WorkspacesTable,
} from "../db/schema.js";
import type { FieldSettings } from "../settings/fields.js";
import type { MetadataSettings } from "../settings/metadata.js";
import type { QuestionSettings } from "../settings/questions.js";

/**
 * Wire shapes of contract section 3. A user's `api_key` is stored as a digest (auth/api-keys.ts), so it
 * is in the answer only where a key was just created or rotated (`newApiKey`): shown once.
 */
export const userOut = (u: Selectable<UsersTable>, newApiKey?: string) => ({
  id: u.id,
  first_name: u.first_name,
  last_name: u.last_name,
  username: u.username,
  role: u.role,
  ...(newApiKey !== undefined ? { api_key: newApiKey } : {}),
  inserted_at: u.inserted_at,
  updated_at: u.updated_at,
});

export const workspaceOut = (w: Selectable<WorkspacesTable>) => ({
  id: w.id,
  name: w.name,
  inserted_at: w.inserted_at,
  updated_at: w.updated_at,
});

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

export const fieldOut = (f: Selectable<FieldsTable>) => ({
  id: f.id,
  name: f.name,
  title: f.title,
  required: Boolean(f.required),
  settings: JSON.parse(f.settings) as FieldSettings,
  dataset_id: f.dataset_id,
  inserted_at: f.inserted_at,
  updated_at: f.updated_at,
});

export const questionOut = (q: Selectable<QuestionsTable>) => ({
  id: q.id,
  name: q.name,
  title: q.title,
  description: q.description,
  required: Boolean(q.required),
  settings: JSON.parse(q.settings) as QuestionSettings,
  dataset_id: q.dataset_id,
  inserted_at: q.inserted_at,
  updated_at: q.updated_at,
});

export const metadataPropertyOut = (m: Selectable<MetadataPropertiesTable>) => ({
  id: m.id,
  name: m.name,
  title: m.title,
  settings: JSON.parse(m.settings) as MetadataSettings,
  visible_for_annotators: (JSON.parse(m.allowed_roles) as string[]).includes("annotator"),
  dataset_id: m.dataset_id,
  inserted_at: m.inserted_at,
  updated_at: m.updated_at,
});

export const vectorSettingsOut = (v: Selectable<VectorsSettingsTable>) => ({
  id: v.id,
  name: v.name,
  title: v.title,
  dimensions: v.dimensions,
  dataset_id: v.dataset_id,
  inserted_at: v.inserted_at,
  updated_at: v.updated_at,
});
