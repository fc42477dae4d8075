import type { ColumnType, Generated } from "kysely";

/** Row types of the store. Timestamps are ISO-8601 strings without timezone (contract conventions). */
export interface UsersTable {
  id: string;
  username: string;
  first_name: string;
  last_name: string | null;
  role: "owner" | "admin" | "annotator";
  password_hash: string;
  /** SHA-256 digest of the API key (auth/api-keys.ts), never the key itself. */
  api_key: string;
  /** Bumped when the password or role changes: tokens of an older version stop (auth/sessions.ts). */
  session_version: Generated<number>;
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

export interface RecordsTable {
  /** INTEGER PRIMARY KEY: insertion order, stable paging, FTS row keys. */
  seq: Generated<number>;
  id: string;
  dataset_id: string;
  external_id: string | null;
  /** JSON object: field name -> value. */
  fields: string;
  /** JSON object or null. */
  metadata: string | null;
  status: "pending" | "completed";
  inserted_at: string;
  updated_at: string;
}

export interface ResponsesTable {
  id: string;
  record_id: string;
  user_id: string;
  status: "submitted" | "discarded" | "draft";
  /** JSON `{question: {"value": V}}` or null. */
  values: string | null;
  inserted_at: string;
  updated_at: string;
}

export interface SuggestionsTable {
  id: string;
  record_id: string;
  question_id: string;
  /** JSON value. */
  value: string;
  /** JSON number, array of numbers, or null. */
  score: string | null;
  agent: string | null;
  type: "model" | "human" | null;
  inserted_at: string;
  updated_at: string;
}

export interface RecordVectorsTable {
  vector_settings_id: string;
  record_id: string;
  /** float32 little-endian blob. */
  vector: Buffer;
  /** How the values sent come back exactly (records/read.ts vectorExact): null, "f32" or JSON; migration 0021. */
  exact: ColumnType<string | null, string | null | undefined, string | null>;
}

export interface ServerSettingsTable {
  key: string;
  value: string;
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
  records: RecordsTable;
  responses: ResponsesTable;
  suggestions: SuggestionsTable;
  record_vectors: RecordVectorsTable;
  server_settings: ServerSettingsTable;
  oauth_states: OAuthStatesTable;
  oauth_identities: OAuthIdentitiesTable;
  jobs: JobsTable;
  webhooks: WebhooksTable;
  record_final_answers: RecordFinalAnswersTable;
  record_reservations: RecordReservationsTable;
  dataset_reservation_settings: DatasetReservationSettingsTable;
  uploads: UploadsTable;
  upload_failures: UploadFailuresTable;
  upload_chunks: UploadChunksTable;
  dataset_answer_versions: DatasetAnswerVersionsTable;
}

/** Moves on every response write of a dataset (triggers of migration 0023); read as max(version) by dataset. */
export interface DatasetAnswerVersionsTable {
  dataset_id: string;
  version: number;
}

/** A file upload and its import's progress (migration 0022-uploads, transfer/import/upload-store.ts). */
export interface UploadsTable {
  id: string;
  user_id: string;
  filename: string;
  format: string;
  size: number;
  status: string;
  dataset_id: string | null;
  /** JSON, the import's column mapping. */
  mapping: string | null;
  rows_done: number;
  rows_stored: number;
  rows_failed: number;
  rows_total: number | null;
  bytes_done: number;
  cancel_requested: number;
  error: string | null;
  inserted_at: string;
  updated_at: string;
}

/** A row of an upload that was not stored, and why. */
export interface UploadFailuresTable {
  upload_id: string;
  row_no: number;
  column_name: string | null;
  message: string;
}

/** PostgreSQL only: an upload's bytes, 1 MiB per row in order of `seq` (postgres/0022-uploads). */
export interface UploadChunksTable {
  upload_id: string;
  seq: number;
  data: Buffer;
}

/** A pending OAuth authorization request; deleted when used (single use) or expired. */
export interface OAuthStatesTable {
  id: string;
  provider: string;
  code_verifier: string;
  nonce: string | null;
  redirect_uri: string;
  redirect_to: string | null;
  expires_at: string;
}

/** Links a provider identity (its stable subject) to a Tessera user. */
export interface OAuthIdentitiesTable {
  provider: string;
  subject: string;
  user_id: string;
  inserted_at: string;
}

/** A background job of the in-process queue (migration 0005-jobs; statuses of contract 3.14). */
export interface JobsTable {
  id: string;
  type: string;
  status: "queued" | "started" | "finished" | "failed";
  /** JSON. */
  payload: string;
  /** JSON, set when finished. */
  result: string | null;
  error: string | null;
  attempts: number;
  max_attempts: number;
  /** Not claimed before this time (retry back-off). */
  run_after: string;
  inserted_at: string;
  started_at: string | null;
  finished_at: string | null;
  updated_at: string;
}

/** A webhook (migration 0007-webhooks, contract 3.16). */
export interface WebhooksTable {
  id: string;
  url: string;
  /** Standard Webhooks signing secret (base64 of random bytes). */
  secret: string;
  /** JSON array of event names. */
  events: string;
  enabled: number;
  description: string | null;
  inserted_at: string;
  updated_at: string;
}

/** A reviewer's final answer for a record (migration 0019-record-final-answers, issue 22). */
export interface RecordFinalAnswersTable {
  record_id: string;
  dataset_id: string;
  /** JSON `{question: {"value": V}}`, the responses' wire shape. */
  values: string;
  reviewer_id: string | null;
  inserted_at: string;
  updated_at: string;
}

/** A record taken by an annotator from the web app's queue, theirs until `expires_at` (migration 0020, reservations/). */
export interface RecordReservationsTable {
  record_id: string;
  user_id: string;
  dataset_id: string;
  taken_at: string;
  expires_at: string;
}

/** A dataset's reservation time-out (migration 0020); absent: the server's default. */
export interface DatasetReservationSettingsTable {
  dataset_id: string;
  ttl_seconds: number;
}
