import { randomUUID } from "node:crypto";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { now } from "../clock.js";
import { notFound, unprocessable } from "../http/errors.js";
import { loadDatasetSchema, type DatasetSchema } from "./dataset-schema.js";
import type { RecordItem, SuggestionCreate } from "./input.js";
import { encodeVector, withIncludes, type RecordOut, type RecordRow } from "./read.js";
import { refreshRecordStatuses } from "./status.js";
import { RecordValueError, validateFields, validateMetadata, validateResponseValues, validateSuggestionValue, validateVectors } from "./values.js";

/**
 * Validates and stores a batch of records for a dataset in ONE transaction (contract 3.10): a failed
 * call stores nothing. Used by `POST/PUT /datasets/{id}/records/bulk` and by the Hub import job.
 *
 * - mode "create": every item is a new record; existing external ids are refused.
 * - mode "upsert": items match existing records by external_id (within the dataset), then by id;
 *   matched records keep their fields, get metadata replaced only when the key was sent, and get
 *   suggestions / responses / vectors upserted per question / user / vector name.
 * - The returned records carry responses and suggestions; vectors are left out (costly to decode, unused by the SDK).
 * - raiseOnError (default true): the first invalid item fails the call with
 *   ``Record at position N is not valid because <reason>``; with false, invalid items are skipped
 *   and reported in `errors` (Hub import behaviour).
 */
export interface IngestOptions { mode: "create" | "upsert"; raiseOnError?: boolean }
export interface IngestResult {
  /** Stored records in input order (invalid items skipped), with responses, suggestions and vectors. */
  items: RecordOut[];
  createdIds: string[];
  updatedIds: string[];
  errors: { position: number; message: string }[];
}

interface Prepared {
  position: number;
  item: RecordItem;
  metadataSent: boolean;
  existing: RecordRow | null;
  id: string;
  suggestions: { questionId: string; s: SuggestionCreate }[];
}

const CHUNK = 200;

export async function ingestRecords(db: Kysely<DB>, datasetId: string, items: RecordItem[], options: IngestOptions): Promise<IngestResult> {
  return db.transaction().execute(async (trx) => {
    const dataset = await trx.selectFrom("datasets").selectAll().where("id", "=", datasetId).executeTakeFirst();
    if (!dataset) throw notFound(`Dataset with id \`${datasetId}\` not found`);
    if (dataset.status !== "ready") {
      throw unprocessable(options.mode === "create" ? "records cannot be created for a non published dataset" : "records cannot be created or updated for a non published dataset");
    }
    const schema = await loadDatasetSchema(trx, dataset);
    return ingestWithSchema(trx, schema, items, options);
  });
}

/** The same as ingestRecords for callers already inside a transaction with the schema loaded. */
export async function ingestWithSchema(trx: Kysely<DB>, schema: DatasetSchema, items: RecordItem[], options: IngestOptions): Promise<IngestResult> {
  const raiseOnError = options.raiseOnError ?? true;
  const datasetId = schema.dataset.id;
  const timestamp = now();

  // Existing records, matched by external_id then id.
  const externalIds = items.map((i) => i.external_id).filter((e): e is string => typeof e === "string");
  const byExternal = new Map<string, RecordRow>();
  for (let i = 0; i < externalIds.length; i += CHUNK) {
    const rows = await trx.selectFrom("records").selectAll().where("dataset_id", "=", datasetId).where("external_id", "in", externalIds.slice(i, i + CHUNK)).execute();
    for (const row of rows) byExternal.set(row.external_id!, row);
  }
  if (options.mode === "create" && byExternal.size > 0) {
    throw unprocessable(`found records with same external ids: ${[...byExternal.keys()].join(", ")}`);
  }
  const byId = new Map<string, RecordRow>();
  if (options.mode === "upsert") {
    const ids = items.map((i) => i.id).filter((e): e is string => typeof e === "string");
    for (let i = 0; i < ids.length; i += CHUNK) {
      for (const row of await trx.selectFrom("records").selectAll().where("id", "in", ids.slice(i, i + CHUNK)).execute()) byId.set(row.id, row);
    }
  }
  const userIds = [...new Set(items.flatMap((i) => (i.responses ?? []).map((r) => r.user_id)))];
  const knownUsers = new Set<string>();
  for (let i = 0; i < userIds.length; i += CHUNK) {
    for (const u of await trx.selectFrom("users").select("id").where("id", "in", userIds.slice(i, i + CHUNK)).execute()) knownUsers.add(u.id);
  }

  const prepared: Prepared[] = [];
  const errors: IngestResult["errors"] = [];
  const seenIds = new Set<string>();
  items.forEach((item, position) => {
    try {
      let existing: RecordRow | null = null;
      if (options.mode === "upsert") {
        existing = (item.external_id !== null && item.external_id !== undefined ? byExternal.get(item.external_id) : undefined)
          ?? (item.id ? byId.get(item.id) : undefined) ?? null;
        if (existing && existing.dataset_id !== datasetId) throw new RecordValueError(`record with id \`${existing.id}\` belongs to another dataset`);
      }
      const id = existing?.id ?? (options.mode === "upsert" && item.id ? item.id : randomUUID());
      if (seenIds.has(id)) throw new RecordValueError(`record with id \`${id}\` appears more than once in the request`);
      const recordFields = existing ? (JSON.parse(existing.fields) as Record<string, unknown>) : (item.fields ?? null);
      if (!existing) validateFields(schema, item.fields);
      validateMetadata(schema, item.metadata);
      const suggestions = prepareSuggestions(schema, item.suggestions ?? [], recordFields);
      validateResponses(schema, item, knownUsers, recordFields);
      validateVectors(schema, item.vectors);
      seenIds.add(id);
      prepared.push({ position, item, existing, id, suggestions, metadataSent: item.metadata !== undefined });
    } catch (error) {
      if (!(error instanceof RecordValueError)) throw error;
      const message = `Record at position ${position} is not valid because ${error.message}`;
      if (raiseOnError) throw unprocessable(message);
      errors.push({ position, message });
    }
  });

  const created = prepared.filter((p) => !p.existing);
  const updated = prepared.filter((p) => p.existing);
  for (let i = 0; i < created.length; i += CHUNK) {
    await trx.insertInto("records").values(created.slice(i, i + CHUNK).map((p) => ({
      id: p.id, dataset_id: datasetId, external_id: p.item.external_id ?? null, fields: JSON.stringify(p.item.fields ?? {}),
      metadata: p.item.metadata ? JSON.stringify(p.item.metadata) : null, status: "pending" as const, inserted_at: timestamp, updated_at: timestamp,
    }))).execute();
  }
  for (const p of updated) {
    await trx.updateTable("records").set(p.metadataSent ? { metadata: p.item.metadata ? JSON.stringify(p.item.metadata) : null, updated_at: timestamp } : { updated_at: timestamp })
      .where("id", "=", p.id).execute();
  }
  await upsertSuggestions(trx, prepared.flatMap((p) => p.suggestions.map((s) => ({ recordId: p.id, ...s }))), timestamp);
  const responses = prepared.flatMap((p) => (p.item.responses ?? []).map((r) => ({ recordId: p.id, userId: r.user_id, status: r.status, values: r.values ?? null })));
  await upsertResponses(trx, responses, timestamp);
  await upsertVectors(trx, schema, prepared.flatMap((p) => Object.entries(p.item.vectors ?? {}).map(([name, values]) => ({ recordId: p.id, name, values }))));

  const statusIds = [...new Set([...updated.map((p) => p.id), ...responses.map((r) => r.recordId)])];
  await refreshRecordStatuses(trx, statusIds, schema.minSubmitted);
  if (responses.length > 0) await trx.updateTable("datasets").set({ last_activity_at: timestamp }).where("id", "=", datasetId).execute();

  const ids = prepared.map((p) => p.id);
  const rows: RecordRow[] = [];
  for (let i = 0; i < ids.length; i += CHUNK) rows.push(...(await trx.selectFrom("records").selectAll().where("id", "in", ids.slice(i, i + CHUNK)).execute()));
  const rowById = new Map(rows.map((r) => [r.id, r]));
  const out = await withIncludes(trx, schema, ids.map((id) => rowById.get(id)!), { responses: true, suggestions: true, vectors: null });
  return { items: out, createdIds: created.map((p) => p.id), updatedIds: updated.map((p) => p.id), errors };
}

/** Resolves question ids (or names) and validates values; duplicate questions in one record are refused. */
export function prepareSuggestions(schema: DatasetSchema, suggestions: SuggestionCreate[], recordFields: Record<string, unknown> | null): { questionId: string; s: SuggestionCreate }[] {
  const seen = new Set<string>();
  return suggestions.map((s) => {
    const question = s.question_id !== undefined ? schema.questionById.get(s.question_id) : schema.questionByName.get(s.question_name ?? "");
    if (!question) {
      throw new RecordValueError(`record does not have valid suggestions: ${s.question_id !== undefined ? `question with id=${s.question_id}` : `question with name=${s.question_name ?? ""}`} does not exist for dataset with id=${schema.dataset.id}`);
    }
    if (seen.has(question.id)) throw new RecordValueError(`record does not have valid suggestions: found duplicate suggestions question IDs`);
    seen.add(question.id);
    try {
      validateSuggestionValue(question, s.value, s.score, recordFields);
    } catch (error) {
      if (error instanceof RecordValueError) throw new RecordValueError(`record does not have valid suggestions: ${error.message}`);
      throw error;
    }
    return { questionId: question.id, s };
  });
}

function validateResponses(schema: DatasetSchema, item: RecordItem, knownUsers: Set<string>, recordFields: Record<string, unknown> | null): void {
  const seen = new Set<string>();
  for (const r of item.responses ?? []) {
    try {
      if (seen.has(r.user_id)) throw new RecordValueError(`found duplicate user responses for user with id \`${r.user_id}\``);
      seen.add(r.user_id);
      if (!knownUsers.has(r.user_id)) throw new RecordValueError(`user with id \`${r.user_id}\` not found`);
      validateResponseValues(schema, r.status, r.values as Record<string, { value: unknown }> | null | undefined, recordFields);
    } catch (error) {
      if (error instanceof RecordValueError) throw new RecordValueError(`record does not have valid responses: ${error.message}`);
      throw error;
    }
  }
}

export async function upsertSuggestions(trx: Kysely<DB>, rows: { recordId: string; questionId: string; s: SuggestionCreate }[], timestamp: string): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx.insertInto("suggestions").values(rows.slice(i, i + CHUNK).map((r) => ({
      id: randomUUID(), record_id: r.recordId, question_id: r.questionId, value: JSON.stringify(r.s.value),
      score: r.s.score === undefined || r.s.score === null ? null : JSON.stringify(r.s.score), agent: r.s.agent ?? null, type: r.s.type ?? null,
      inserted_at: timestamp, updated_at: timestamp,
    }))).onConflict((oc) => oc.columns(["record_id", "question_id"]).doUpdateSet((eb) => ({
      value: eb.ref("excluded.value"), score: eb.ref("excluded.score"), agent: eb.ref("excluded.agent"), type: eb.ref("excluded.type"), updated_at: eb.ref("excluded.updated_at"),
    }))).execute();
  }
}

export async function upsertResponses(trx: Kysely<DB>, rows: { recordId: string; userId: string; status: "submitted" | "draft" | "discarded"; values: Record<string, unknown> | null }[], timestamp: string): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx.insertInto("responses").values(rows.slice(i, i + CHUNK).map((r) => ({
      id: randomUUID(), record_id: r.recordId, user_id: r.userId, status: r.status, values: r.values === null ? null : JSON.stringify(r.values),
      inserted_at: timestamp, updated_at: timestamp,
    }))).onConflict((oc) => oc.columns(["record_id", "user_id"]).doUpdateSet((eb) => ({
      status: eb.ref("excluded.status"), values: eb.ref("excluded.values"), updated_at: eb.ref("excluded.updated_at"),
    }))).execute();
  }
}

/** Upserts vectors per (record, vector settings); a null value removes that vector. */
export async function upsertVectors(trx: Kysely<DB>, schema: DatasetSchema, rows: { recordId: string; name: string; values: number[] | null }[]): Promise<void> {
  const resolved = rows.map((r) => ({ ...r, settingsId: schema.vectorByName.get(r.name)!.id }));
  for (const r of resolved.filter((x) => x.values === null)) {
    await trx.deleteFrom("record_vectors").where("record_id", "=", r.recordId).where("vector_settings_id", "=", r.settingsId).execute();
  }
  const writes = resolved.filter((x) => x.values !== null);
  for (let i = 0; i < writes.length; i += CHUNK) {
    await trx.insertInto("record_vectors").values(writes.slice(i, i + CHUNK).map((r) => ({ vector_settings_id: r.settingsId, record_id: r.recordId, vector: encodeVector(r.values!) })))
      .onConflict((oc) => oc.columns(["vector_settings_id", "record_id"]).doUpdateSet((eb) => ({ vector: eb.ref("excluded.vector") }))).execute();
  }
}
