import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { loadDatasetSchema } from "../records/dataset-schema.js";
import { withIncludes } from "../records/read.js";
import { FULL_VIEW } from "../records/visibility.js";
import { PermanentJobError, type JobContext } from "../jobs/port.js";

export const HUB_EXPORT_JOB = "hub_export";
export const HUB_EXPORT_UNAVAILABLE =
  "Exporting to the Hugging Face Hub is not available on this server: no Hub upload endpoint is configured. Nothing was uploaded.";

/** The persisted job payload. The Hub token is NOT in it (jobs rows are readable in the store): see `ExportTokens`. */
export interface HubExportPayload {
  dataset_id: string;
  name: string;
  subset: string;
  split: string;
  private: boolean;
  /** Key of the token in the process's `ExportTokens`. */
  token_ref: string;
}

export interface HubExportFile {
  path: string;
  content: string;
}
export interface HubUploadRequest {
  repoId: string;
  subset: string;
  split: string;
  private: boolean;
  token: string;
  files: HubExportFile[];
}

/**
 * The port through which an export reaches the Hub (create the dataset repo, commit the files).
 * `configured` false: the job fails at once with `HUB_EXPORT_UNAVAILABLE` (this server ships no
 * uploader yet; docs/hub.md). Tests bind an in-memory uploader.
 */
export interface HubUploader {
  readonly configured: boolean;
  upload(request: HubUploadRequest, signal: AbortSignal): Promise<{ url: string }>;
}

export const unconfiguredHubUploader: HubUploader = {
  configured: false,
  upload: () => Promise.reject(new PermanentJobError(HUB_EXPORT_UNAVAILABLE)),
};

/**
 * Hub tokens of queued exports, kept in this process's memory only and handed to the job once:
 * a token never lands in the `jobs` table. An export whose token is gone (server restarted, or a
 * job picked up by another replica) fails with a clear message; run the export again.
 */
export class ExportTokens {
  private readonly tokens = new Map<string, string>();
  put(ref: string, token: string): void {
    this.tokens.set(ref, token);
  }
  take(ref: string): string | undefined {
    const token = this.tokens.get(ref);
    this.tokens.delete(ref);
    return token;
  }
}
export const exportTokens = new ExportTokens();

export interface HubExportDeps {
  db: Kysely<DB>;
  uploader: HubUploader;
  tokens?: ExportTokens;
}
export interface HubExportResult {
  repo_id: string;
  url: string;
  records: number;
}

const PAGE = 500;

/**
 * The export job: one JSON object per record (`<subset>/<split>.jsonl`) with `id` (external id or
 * server id), `status`, `_server_id`, every field and metadata value, per question the submitted
 * responses (`<q>.responses`, `.responses.users`, `.responses.status`) and the suggestion
 * (`<q>.suggestion`, `.suggestion.score`, `.suggestion.agent`), plus `.argilla/settings.json` (the
 * dataset's settings) so it can be imported back.
 */
export async function runHubExport(
  deps: HubExportDeps,
  payload: HubExportPayload,
  context: Pick<JobContext, "signal">,
): Promise<HubExportResult> {
  const token = (deps.tokens ?? exportTokens).take(payload.token_ref);
  if (!deps.uploader.configured) throw new PermanentJobError(HUB_EXPORT_UNAVAILABLE);
  if (!token)
    throw new PermanentJobError("The Hub token of this export is no longer available (the server restarted); run the export again");
  const dataset = await deps.db.selectFrom("datasets").selectAll().where("id", "=", payload.dataset_id).executeTakeFirst();
  if (!dataset) throw new PermanentJobError(`Dataset with id \`${payload.dataset_id}\` not found`);
  const schema = await loadDatasetSchema(deps.db, dataset);
  const questionNames = new Map(schema.questions.map((q) => [q.id, q.name]));
  const lines: string[] = [];
  for (let offset = 0; ; offset += PAGE) {
    if (context.signal.aborted) throw new Error("The export was interrupted");
    const rows = await deps.db
      .selectFrom("records")
      .selectAll()
      .where("dataset_id", "=", dataset.id)
      .orderBy("seq")
      .limit(PAGE)
      .offset(offset)
      .execute();
    if (rows.length === 0) break;
    for (const record of await withIncludes(deps.db, schema, rows, { responses: true, suggestions: true, vectors: null }, FULL_VIEW)) {
      const row: Record<string, unknown> = {
        id: record.external_id ?? record.id,
        status: record.status,
        _server_id: record.id,
        ...record.fields,
        ...(record.metadata ?? {}),
      };
      for (const question of schema.questions) {
        const submitted = (record.responses ?? []).filter((r) => r.values && question.name in r.values);
        row[`${question.name}.responses`] = submitted.map((r) => r.values![question.name]!.value);
        row[`${question.name}.responses.users`] = submitted.map((r) => r.user_id);
        row[`${question.name}.responses.status`] = submitted.map((r) => r.status);
      }
      for (const suggestion of record.suggestions ?? []) {
        const name = questionNames.get(suggestion.question_id);
        if (!name) continue;
        row[`${name}.suggestion`] = suggestion.value;
        row[`${name}.suggestion.score`] = suggestion.score;
        row[`${name}.suggestion.agent`] = suggestion.agent;
      }
      lines.push(JSON.stringify(row));
    }
  }
  if (lines.length === 0) throw new PermanentJobError(`Dataset with id \`${dataset.id}\` has no records to export`);
  const settings = {
    guidelines: dataset.guidelines,
    allow_extra_metadata: Boolean(dataset.allow_extra_metadata),
    distribution: JSON.parse(dataset.distribution) as unknown,
    fields: schema.fields.map((f) => ({ name: f.name, required: f.required, settings: f.settings })),
    questions: schema.questions.map((q) => ({ name: q.name, required: q.required, settings: q.settings })),
    metadata: schema.metadataProperties.map((m) => ({
      name: m.name,
      settings: m.settings,
      visible_for_annotators: m.allowedRoles.includes("annotator"),
    })),
    vectors: schema.vectorSettings.map((v) => ({ name: v.name, dimensions: v.dimensions })),
  };
  const files: HubExportFile[] = [
    { path: `${payload.subset}/${payload.split}.jsonl`, content: `${lines.join("\n")}\n` },
    { path: ".argilla/settings.json", content: JSON.stringify(settings, null, 2) },
    { path: ".argilla/dataset.json", content: JSON.stringify({ name: dataset.name }, null, 2) },
  ];
  const uploaded = await deps.uploader.upload(
    { repoId: payload.name, subset: payload.subset, split: payload.split, private: payload.private, token, files },
    context.signal,
  );
  return { repo_id: payload.name, url: uploaded.url, records: lines.length };
}
