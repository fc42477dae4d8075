import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { HttpError } from "../http/errors.js";
import { loadDatasetSchema, type DatasetSchema } from "../records/dataset-schema.js";
import { ingestRecords } from "../records/ingest.js";
import type { RecordItem, SuggestionCreate } from "../records/input.js";
import { PermanentJobError, type JobContext } from "../jobs/port.js";
import type { EventSink } from "../webhooks/events.js";
import { HubError, HUB_ROWS_PER_PAGE, type HubClient } from "./client.js";
import { convertCell } from "./features.js";
import type { HubMapping } from "./mapping.js";

export const HUB_IMPORT_JOB = "hub_import";
/** The import takes the first 10,000 rows of the split (spec section 9, contract 6). */
export const HUB_IMPORT_MAX_ROWS = 10_000;
export const HUB_NOT_FOUND_MESSAGE = "Dataset not found or available on Hugging Face";

export interface HubImportPayload {
  dataset_id: string;
  name: string;
  subset: string;
  split: string;
  mapping: HubMapping;
}

export interface HubImportResult {
  rows_read: number;
  records_stored: number;
  records_skipped: number;
  /** The first few skipped-record messages, for the curious. */
  errors: string[];
}

/**
 * Stores one batch of records (the records engineer's ingestion, upsert mode, invalid items skipped).
 * `createdIds` / `updatedIds` name the records stored, for the webhook events.
 */
export type IngestBatch = (
  datasetId: string,
  items: RecordItem[],
) => Promise<{ stored: number; errors: string[]; createdIds?: string[]; updatedIds?: string[] }>;

export interface HubImportDeps {
  db: Kysely<DB>;
  hub: HubClient;
  ingest?: IngestBatch;
  maxRows?: number;
  /** Webhook events: record.created / record.updated per stored page, as the bulk routes emit them. */
  events?: Pick<EventSink, "emit">;
}

export const ingestWithRecordsModule =
  (db: Kysely<DB>): IngestBatch =>
  async (datasetId, items) => {
    const result = await ingestRecords(db, datasetId, items, { mode: "upsert", raiseOnError: false });
    return {
      stored: result.items.length,
      errors: result.errors.map((e) => e.message),
      createdIds: result.createdIds,
      updatedIds: result.updatedIds,
    };
  };

/**
 * The Hub import job (contract 6): reads the first 10,000 rows of `name/subset/split` from the
 * viewer's `/rows` in pages of 100, converts cells by feature type, builds records by the mapping
 * and upserts them by external id. Missing dataset, unpublished dataset and unknown Hub repo are
 * permanent failures; Hub outages are retried by the queue (the upsert makes reruns harmless).
 */
export async function runHubImport(
  deps: HubImportDeps,
  payload: HubImportPayload,
  context: Pick<JobContext, "signal">,
): Promise<HubImportResult> {
  const ingest = deps.ingest ?? ingestWithRecordsModule(deps.db);
  const maxRows = deps.maxRows ?? HUB_IMPORT_MAX_ROWS;
  const dataset = await deps.db.selectFrom("datasets").selectAll().where("id", "=", payload.dataset_id).executeTakeFirst();
  if (!dataset) throw new PermanentJobError(`Dataset with id \`${payload.dataset_id}\` not found`);
  if (dataset.status !== "ready") throw new PermanentJobError("It is not possible to import records to a non published dataset");
  const schema = await loadDatasetSchema(deps.db, dataset);

  const result: HubImportResult = { rows_read: 0, records_stored: 0, records_skipped: 0, errors: [] };
  let total = Infinity;
  let features: Map<string, unknown> | null = null;
  for (let offset = 0; offset < Math.min(total, maxRows);) {
    if (context.signal.aborted) throw context.signal.reason instanceof Error ? context.signal.reason : new Error("aborted");
    const length = Math.min(HUB_ROWS_PER_PAGE, maxRows - offset);
    let page;
    try {
      page = await deps.hub.rows(payload.name, payload.subset, payload.split, offset, length, context.signal);
    } catch (error) {
      if (error instanceof HubError && error.kind === "not_found") throw new PermanentJobError(HUB_NOT_FOUND_MESSAGE);
      if (error instanceof HubError && error.kind === "invalid_request")
        throw new PermanentJobError(`The Hugging Face Hub refused the request: ${error.message}`);
      throw error;
    }
    total = page.num_rows_total;
    features ??= new Map(page.features.map((f) => [f.name, f.type]));
    if (page.rows.length === 0) break;
    const items = dedupeExternalIds(
      page.rows.map((row) => buildRecord(schema, payload, features!, row.row, row.row_idx)),
      result,
    );
    result.rows_read += page.rows.length;
    offset += page.rows.length;
    if (items.length === 0) continue;
    try {
      const stored = await ingest(payload.dataset_id, items);
      // Imported records carry no responses, so none is completed on arrival (no record.completed).
      if (stored.createdIds?.length) deps.events?.emit("record.created", { recordIds: stored.createdIds });
      if (stored.updatedIds?.length) deps.events?.emit("record.updated", { recordIds: stored.updatedIds });
      result.records_stored += stored.stored;
      result.records_skipped += stored.errors.length;
      if (result.errors.length < 10) result.errors.push(...stored.errors.slice(0, 10 - result.errors.length));
    } catch (error) {
      // The dataset was deleted or unpublished meanwhile: retrying cannot help.
      if (error instanceof HttpError && error.status < 500) throw new PermanentJobError(detailOf(error));
      throw error;
    }
  }
  return result;
}

function detailOf(error: HttpError): string {
  const body = error.body as { detail?: unknown } | null;
  return typeof body?.detail === "string" ? body.detail : error.message;
}

/** Argilla's rules (contract 6 step 4): unknown targets and null values are skipped; values cast per target type. */
export function buildRecord(
  schema: DatasetSchema,
  payload: HubImportPayload,
  features: Map<string, unknown>,
  row: Record<string, unknown>,
  rowIdx: number,
): RecordItem {
  const cell = (column: string) => convertCell(features.get(column), row[column]);
  const fields: Record<string, unknown> = {};
  for (const { source, target } of payload.mapping.fields) {
    const field = schema.fieldByName.get(target);
    const value = cell(source);
    if (!field || value === null) continue;
    if (field.settings.type === "text") fields[target] = asText(value);
    else if (field.settings.type === "chat" && typeof value === "string") fields[target] = [{ role: "user", content: value }];
    else fields[target] = value;
  }
  const metadata: Record<string, unknown> = {};
  for (const { source, target } of payload.mapping.metadata) {
    const value = cell(source);
    if (schema.metadataByName.has(target) && value !== null) metadata[target] = value;
  }
  const suggestions: SuggestionCreate[] = [];
  for (const { source, target } of payload.mapping.suggestions) {
    const question = schema.questionByName.get(target);
    const value = cell(source);
    if (!question || value === null) continue;
    const type = question.settings.type;
    let suggested: unknown = value;
    if (type === "text" || type === "label_selection") suggested = asText(value);
    else if (type === "rating") suggested = Math.trunc(Number(value));
    else if (type === "multi_label_selection") suggested = (Array.isArray(value) ? value : [value]).filter((v) => v !== null).map(asText);
    if (type === "multi_label_selection" && Array.isArray(suggested) && suggested.length === 0) continue;
    if (type === "rating" && !Number.isFinite(suggested)) continue;
    suggestions.push({ question_name: question.name, value: suggested });
  }
  const mappedId = payload.mapping.external_id ? cell(payload.mapping.external_id) : null;
  return {
    external_id: mappedId === null ? `${payload.split}_${rowIdx}` : asText(mappedId),
    fields,
    metadata,
    suggestions,
  };
}

const asText = (value: unknown): string =>
  typeof value === "string" ? value : typeof value === "object" ? JSON.stringify(value) : String(value);

/** A mapped external id column may repeat within a page: the first row wins, the others are skipped. */
function dedupeExternalIds(items: RecordItem[], result: HubImportResult): RecordItem[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const id = item.external_id as string;
    if (!seen.has(id)) {
      seen.add(id);
      return true;
    }
    result.records_skipped += 1;
    if (result.errors.length < 10) result.errors.push(`Row with external id \`${id}\` repeats an earlier row and was skipped`);
    return false;
  });
}
