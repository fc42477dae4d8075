import { randomUUID } from "node:crypto";
import type SQLite from "better-sqlite3";
import type { Kysely } from "kysely";
import { recordStatusFor } from "@tessera/domain";
import type { DB } from "../db/schema.js";
import { now } from "../clock.js";
import { rawSqliteOf } from "../db/database.js";
import { notFound, unprocessable } from "../http/errors.js";
import { findUnstorableText } from "../security/storable-text.js";
import { textIndexFor } from "../search/text-index.js";
import { loadDatasetSchema, type DatasetSchema } from "./dataset-schema.js";
import type { RecordItem, SuggestionCreate } from "./input.js";
import { FULL_VIEW } from "./visibility.js";
import { encodeVector, vectorExact, withIncludes, type RecordOut, type RecordRow, type ResponseOut } from "./read.js";
import { refreshRecordStatuses } from "./status.js";
import { recordsWritten } from "./write-hooks.js";
import {
  RecordValueError,
  validateFields,
  validateMetadata,
  validateResponseValues,
  validateSuggestionValue,
  validateVectors,
} from "./values.js";

/**
 * Validates and stores a batch of records for a dataset in ONE transaction (contract 3.10): a failed
 * call stores nothing. Used by `POST/PUT /datasets/{id}/records/bulk` and by the Hub import job.
 *
 * - mode "create": every item is a new record; existing external ids are refused.
 * - mode "upsert": items match existing records of the dataset by external_id, then by id; matched
 *   records get the fields that were sent updated (the others kept; the result must still be valid),
 *   metadata replaced only when the key was sent, and suggestions / responses / vectors upserted per
 *   question / user / vector name. An item that matches nothing is a new record with a new id, also
 *   when its id is a record of another dataset (a record read from one dataset and logged into
 *   another is copied, as by the reference server).
 * - The returned records carry responses and suggestions; vectors are left out (costly to decode, unused by the SDK).
 * - raiseOnError (default true): the first invalid item fails the call with
 *   ``Record at position N is not valid because <reason>``; with false, invalid items are skipped
 *   and reported in `errors` (Hub import behaviour).
 */
export interface IngestOptions {
  mode: "create" | "upsert";
  raiseOnError?: boolean;
}
export interface IngestResult {
  /** Stored records in input order (invalid items skipped), with responses, suggestions and vectors. */
  items: RecordOut[];
  /**
   * `JSON.stringify(items)`, the same text, built reusing the JSON of each new record's fields and
   * metadata written to the store: stringifying the texts again for the response was 7 us per record.
   */
  itemsJson(): string;
  createdIds: string[];
  updatedIds: string[];
  errors: { position: number; message: string }[];
}

interface Prepared {
  position: number;
  item: RecordItem;
  metadataSent: boolean;
  existing: RecordRow | null;
  /** An existing record's fields after the update (JSON text), when the item sent fields. */
  updatedFields: string | null;
  id: string;
  suggestions: { questionId: string; s: SuggestionCreate }[];
  /** A new record's fields and metadata as stored (JSON text; metadata null when absent). */
  json?: { fields: string; metadata: string | null };
}

const CHUNK = 200;

/**
 * Ids of new records, suggestions and responses: UUIDv7 (RFC 9562: 48-bit Unix time in ms, version 7,
 * 74 random bits), so that the unique indexes on them (records.id, suggestions.id, the (record_id, ...)
 * indexes of suggestions, responses and record_vectors) grow at their right edge instead of at random
 * pages: a batch dirties a few index pages instead of hundreds (bench, 100K records: server CPU per
 * record 320-370 -> 235 us, most of it WAL writes and checkpoints of the random UUIDv4 keys). Built
 * from randomUUID (pooled entropy): the `uuid` package's v7 costs ~4 us per id in getRandomValues.
 */
const newId = (): string => {
  const ms = Date.now().toString(16).padStart(12, "0");
  // randomUUID(): xxxxxxxx-xxxx-4xxx-Vxxx-xxxxxxxxxxxx; keep its random bits from position 15 (V: the RFC variant).
  return `${ms.slice(0, 8)}-${ms.slice(8)}-7${randomUUID().slice(15)}`;
};

export async function ingestRecords(db: Kysely<DB>, datasetId: string, items: RecordItem[], options: IngestOptions): Promise<IngestResult> {
  const raw = rawSqliteOf(db);
  const result = await db.transaction().execute(async (trx) => {
    const dataset = await trx.selectFrom("datasets").selectAll().where("id", "=", datasetId).executeTakeFirst();
    if (!dataset) throw notFound(`Dataset with id \`${datasetId}\` not found`);
    if (dataset.status !== "ready") {
      throw unprocessable(
        options.mode === "create"
          ? "records cannot be created for a non published dataset"
          : "records cannot be created or updated for a non published dataset",
      );
    }
    const schema = await loadDatasetSchema(trx, dataset);
    return ingestWithSchema(trx, schema, items, options, raw);
  });
  // Committed: the full-text rows, planner statistics and similarity codes follow off the request path.
  recordsWritten(db, { datasetId, created: result.createdIds.length });
  // Embedded store: the answer waits while the text indexer is far behind the writes (TextIndex.keepUp), so that
  // an import ends with little left to index before its records can be searched.
  await textIndexFor(db)?.keepUp();
  return result;
}

/**
 * The same as ingestRecords for callers already inside a transaction with the schema loaded.
 * `raw`: the embedded store's better-sqlite3 connection that `trx` runs on (`rawSqliteOf(db)`): the
 * writes then go through prepared statements reused across batches, synchronously, instead of
 * Kysely-compiled multi-row statements (the PostgreSQL path, and SQLite without `raw`).
 */
export async function ingestWithSchema(
  trx: Kysely<DB>,
  schema: DatasetSchema,
  items: RecordItem[],
  options: IngestOptions,
  raw: SQLite.Database | null = null,
): Promise<IngestResult> {
  const raiseOnError = options.raiseOnError ?? true;
  const datasetId = schema.dataset.id;
  const timestamp = now();
  const st = raw ? statementsOf(raw) : null;

  // Existing records, matched by external_id then id (one set-based lookup each).
  const externalIds = items.map((i) => i.external_id).filter((e): e is string => typeof e === "string");
  const ids = options.mode === "upsert" ? items.map((i) => i.id).filter((e): e is string => typeof e === "string") : [];
  const userIds = [...new Set(items.flatMap((i) => (i.responses ?? []).map((r) => r.user_id)))];
  const byExternal = new Map<string, RecordRow>();
  const byId = new Map<string, RecordRow>();
  const knownUsers = new Set<string>();
  if (st) {
    if (externalIds.length > 0)
      for (const row of st.byExternalIds.all(datasetId, JSON.stringify(externalIds)) as RecordRow[]) byExternal.set(row.external_id!, row);
    if (ids.length > 0) for (const row of st.byIdsInDataset.all(datasetId, JSON.stringify(ids)) as RecordRow[]) byId.set(row.id, row);
    if (userIds.length > 0) for (const u of st.users.all(JSON.stringify(userIds)) as { id: string }[]) knownUsers.add(u.id);
  } else {
    for (let i = 0; i < externalIds.length; i += CHUNK) {
      const rows = await trx
        .selectFrom("records")
        .selectAll()
        .where("dataset_id", "=", datasetId)
        .where("external_id", "in", externalIds.slice(i, i + CHUNK))
        .execute();
      for (const row of rows) byExternal.set(row.external_id!, row);
    }
    for (let i = 0; i < ids.length; i += CHUNK) {
      for (const row of await trx
        .selectFrom("records")
        .selectAll()
        .where("dataset_id", "=", datasetId)
        .where("id", "in", ids.slice(i, i + CHUNK))
        .execute())
        byId.set(row.id, row);
    }
    for (let i = 0; i < userIds.length; i += CHUNK) {
      for (const u of await trx
        .selectFrom("users")
        .select("id")
        .where("id", "in", userIds.slice(i, i + CHUNK))
        .execute())
        knownUsers.add(u.id);
    }
  }
  if (options.mode === "create" && byExternal.size > 0) {
    throw unprocessable(`found records with same external ids: ${[...byExternal.keys()].join(", ")}`);
  }

  const prepared: Prepared[] = [];
  const errors: IngestResult["errors"] = [];
  const seenIds = new Set<string>();
  items.forEach((item, position) => {
    try {
      let existing: RecordRow | null = null;
      if (options.mode === "upsert") {
        existing =
          (item.external_id !== null && item.external_id !== undefined ? byExternal.get(item.external_id) : undefined) ??
          (item.id ? byId.get(item.id) : undefined) ??
          null;
      }
      const unstorable = findUnstorableText({ ...item, vectors: undefined });
      if (unstorable)
        throw new RecordValueError(
          `\`${unstorable.join(".")}\` has the NUL character (U+0000) or an unpaired surrogate, which cannot be stored`,
        );
      const id = existing?.id ?? newId();
      if (seenIds.has(id)) throw new RecordValueError(`record with id \`${id}\` appears more than once in the request`);
      let recordFields = item.fields ?? null;
      let updatedFields: string | null = null;
      if (!existing) validateFields(schema, item.fields);
      else {
        recordFields = JSON.parse(existing.fields) as Record<string, unknown>;
        if (item.fields && Object.keys(item.fields).length > 0) {
          recordFields = { ...recordFields, ...item.fields };
          validateFields(schema, recordFields);
          updatedFields = JSON.stringify(recordFields);
        }
      }
      validateMetadata(schema, item.metadata);
      const suggestions = prepareSuggestions(schema, item.suggestions ?? [], recordFields);
      validateResponses(schema, item, knownUsers, recordFields);
      validateVectors(schema, item.vectors);
      seenIds.add(id);
      prepared.push({ position, item, existing, id, suggestions, metadataSent: item.metadata !== undefined, updatedFields });
    } catch (error) {
      if (!(error instanceof RecordValueError)) throw error;
      const message = `Record at position ${position} is not valid because ${error.message}`;
      if (raiseOnError) throw unprocessable(message);
      errors.push({ position, message });
    }
  });

  const created = prepared.filter((p) => !p.existing);
  const updated = prepared.filter((p) => p.existing);
  const responses = prepared.flatMap((p) =>
    (p.item.responses ?? []).map((r) => ({ recordId: p.id, userId: r.user_id, status: r.status, values: r.values ?? null })),
  );
  // A new record's responses are all in its item, so its status is known before it is written.
  const statusOfNew = (p: Prepared) =>
    recordStatusFor((p.item.responses ?? []).filter((r) => r.status === "submitted").length, schema.minSubmitted);
  const suggestionRows = prepared.flatMap((p) => p.suggestions.map((s) => ({ recordId: p.id, id: newId(), ...s })));
  const responseRows = responses.map((r) => ({ ...r, id: newId() }));
  const vectorRows = prepared.flatMap((p) =>
    Object.entries(p.item.vectors ?? {}).map(([name, values]) => ({ recordId: p.id, name, values })),
  );

  for (const p of created)
    p.json = { fields: JSON.stringify(p.item.fields ?? {}), metadata: p.item.metadata ? JSON.stringify(p.item.metadata) : null };
  if (st) {
    // Synchronous from here to the end of the writes: the Kysely transaction holds the connection.
    for (const p of created)
      st.insertRecord.run(
        p.id,
        datasetId,
        p.item.external_id ?? null,
        p.json!.fields,
        p.json!.metadata,
        statusOfNew(p),
        timestamp,
        timestamp,
      );
    for (const p of updated) {
      if (p.updatedFields !== null) st.updateRecordFields.run(p.updatedFields, p.id);
      if (p.metadataSent) st.updateRecordMetadata.run(p.item.metadata ? JSON.stringify(p.item.metadata) : null, timestamp, p.id);
      else st.touchRecord.run(timestamp, p.id);
    }
    for (const r of suggestionRows) {
      st.upsertSuggestion.run(
        r.id,
        r.recordId,
        r.questionId,
        JSON.stringify(r.s.value),
        r.s.score === undefined || r.s.score === null ? null : JSON.stringify(r.s.score),
        r.s.agent ?? null,
        r.s.type ?? null,
        timestamp,
        timestamp,
      );
    }
    for (const r of responseRows)
      st.upsertResponse.run(
        r.id,
        r.recordId,
        r.userId,
        r.status,
        r.values === null ? null : JSON.stringify(r.values),
        timestamp,
        timestamp,
      );
    for (const v of vectorRows) {
      const settingsId = schema.vectorByName.get(v.name)!.id;
      if (v.values === null) st.deleteVector.run(v.recordId, settingsId);
      else st.upsertVector.run(settingsId, v.recordId, encodeVector(v.values), vectorExact(v.values));
    }
    for (const p of updated) st.refreshStatus.run(schema.minSubmitted, p.id);
    if (responses.length > 0) st.touchDataset.run(timestamp, datasetId);
  } else {
    for (let i = 0; i < created.length; i += CHUNK) {
      await trx
        .insertInto("records")
        .values(
          created.slice(i, i + CHUNK).map((p) => ({
            id: p.id,
            dataset_id: datasetId,
            external_id: p.item.external_id ?? null,
            fields: p.json!.fields,
            metadata: p.json!.metadata,
            status: statusOfNew(p),
            inserted_at: timestamp,
            updated_at: timestamp,
          })),
        )
        .execute();
    }
    for (const p of updated) {
      await trx
        .updateTable("records")
        .set({
          updated_at: timestamp,
          ...(p.metadataSent ? { metadata: p.item.metadata ? JSON.stringify(p.item.metadata) : null } : {}),
          ...(p.updatedFields !== null ? { fields: p.updatedFields } : {}),
        })
        .where("id", "=", p.id)
        .execute();
    }
    await upsertSuggestions(trx, suggestionRows, timestamp);
    await upsertResponses(trx, responseRows, timestamp);
    await upsertVectors(trx, schema, vectorRows);
    await refreshRecordStatuses(
      trx,
      updated.map((p) => p.id),
      schema.minSubmitted,
    );
    if (responses.length > 0) await trx.updateTable("datasets").set({ last_activity_at: timestamp }).where("id", "=", datasetId).execute();
  }

  // The response: new records are built from what was written; updated ones are read back (they keep
  // suggestions and responses that were not in the item).
  const updatedRows = new Map<string, RecordOut>();
  const updatedIds = updated.map((p) => p.id);
  for (let i = 0; i < updatedIds.length; i += CHUNK) {
    const rows = st
      ? (st.byIds.all(JSON.stringify(updatedIds.slice(i, i + CHUNK))) as RecordRow[])
      : await trx
          .selectFrom("records")
          .selectAll()
          .where("id", "in", updatedIds.slice(i, i + CHUNK))
          .execute();
    // Only owners and admin members ingest (the bulk routes check it), so the full view.
    for (const out of await withIncludes(trx, schema, rows, { responses: true, suggestions: true, vectors: null }, FULL_VIEW))
      updatedRows.set(out.id, out);
  }
  const suggestionsOf = groupBy(suggestionRows, (r) => r.recordId);
  const responsesOf = groupBy(responseRows, (r) => r.recordId);
  const out = prepared.map(
    (p): RecordOut =>
      updatedRows.get(p.id) ?? {
        id: p.id,
        status: statusOfNew(p),
        fields: p.item.fields ?? {},
        metadata: p.item.metadata ?? null,
        external_id: p.item.external_id ?? null,
        dataset_id: datasetId,
        inserted_at: timestamp,
        updated_at: timestamp,
        responses: (responsesOf.get(p.id) ?? []).map((r) => ({
          id: r.id,
          values: r.values as ResponseOut["values"],
          status: r.status,
          record_id: p.id,
          user_id: r.userId,
          inserted_at: timestamp,
          updated_at: timestamp,
        })),
        suggestions: (suggestionsOf.get(p.id) ?? []).map((r) => ({
          id: r.id,
          question_id: r.questionId,
          type: r.s.type ?? null,
          value: r.s.value ?? null,
          agent: r.s.agent ?? null,
          score: r.s.score ?? null,
          inserted_at: timestamp,
          updated_at: timestamp,
        })),
      },
  );
  const itemsJson = () =>
    `[${out
      .map((o, i) => {
        const json = prepared[i]!.json;
        return json ? newRecordJson(o, json) : JSON.stringify(o);
      })
      .join(",")}]`;
  return { items: out, itemsJson, createdIds: created.map((p) => p.id), updatedIds, errors };
}

/** JSON.stringify of a new record's RecordOut (same keys, same order), with its stored fields and metadata text. */
function newRecordJson(o: RecordOut, json: { fields: string; metadata: string | null }): string {
  return (
    `{"id":${JSON.stringify(o.id)},"status":${JSON.stringify(o.status)},"fields":${json.fields},"metadata":${json.metadata ?? "null"},` +
    `"external_id":${JSON.stringify(o.external_id)},"dataset_id":${JSON.stringify(o.dataset_id)},"inserted_at":${JSON.stringify(o.inserted_at)},` +
    `"updated_at":${JSON.stringify(o.updated_at)},"responses":${JSON.stringify(o.responses)},"suggestions":${JSON.stringify(o.suggestions)}}`
  );
}

function groupBy<T>(rows: T[], key: (row: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const row of rows) {
    const list = out.get(key(row));
    if (list) list.push(row);
    else out.set(key(row), [row]);
  }
  return out;
}

/** Prepared statements of the SQLite ingestion, per connection (compiled once, reused by every batch). */
interface IngestStatements {
  byExternalIds: SQLite.Statement;
  byIds: SQLite.Statement;
  byIdsInDataset: SQLite.Statement;
  users: SQLite.Statement;
  insertRecord: SQLite.Statement;
  updateRecordFields: SQLite.Statement;
  updateRecordMetadata: SQLite.Statement;
  touchRecord: SQLite.Statement;
  upsertSuggestion: SQLite.Statement;
  upsertResponse: SQLite.Statement;
  upsertVector: SQLite.Statement;
  deleteVector: SQLite.Statement;
  refreshStatus: SQLite.Statement;
  touchDataset: SQLite.Statement;
}
const statementCache = new WeakMap<SQLite.Database, IngestStatements>();

function statementsOf(raw: SQLite.Database): IngestStatements {
  let st = statementCache.get(raw);
  if (st) return st;
  st = {
    byExternalIds: raw.prepare("SELECT * FROM records WHERE dataset_id = ? AND external_id IN (SELECT value FROM json_each(?))"),
    byIds: raw.prepare("SELECT * FROM records WHERE id IN (SELECT value FROM json_each(?))"),
    byIdsInDataset: raw.prepare("SELECT * FROM records WHERE dataset_id = ? AND id IN (SELECT value FROM json_each(?))"),
    users: raw.prepare("SELECT id FROM users WHERE id IN (SELECT value FROM json_each(?))"),
    insertRecord: raw.prepare(
      "INSERT INTO records (id, dataset_id, external_id, fields, metadata, status, inserted_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
    ),
    updateRecordFields: raw.prepare("UPDATE records SET fields = ? WHERE id = ?"),
    updateRecordMetadata: raw.prepare("UPDATE records SET metadata = ?, updated_at = ? WHERE id = ?"),
    touchRecord: raw.prepare("UPDATE records SET updated_at = ? WHERE id = ?"),
    upsertSuggestion:
      raw.prepare(`INSERT INTO suggestions (id, record_id, question_id, value, score, agent, type, inserted_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (record_id, question_id) DO UPDATE SET value = excluded.value, score = excluded.score, agent = excluded.agent, type = excluded.type, updated_at = excluded.updated_at`),
    upsertResponse:
      raw.prepare(`INSERT INTO responses (id, record_id, user_id, status, "values", inserted_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (record_id, user_id) DO UPDATE SET status = excluded.status, "values" = excluded."values", updated_at = excluded.updated_at`),
    upsertVector: raw.prepare(`INSERT INTO record_vectors (vector_settings_id, record_id, vector, exact) VALUES (?, ?, ?, ?)
      ON CONFLICT (vector_settings_id, record_id) DO UPDATE SET vector = excluded.vector, exact = excluded.exact`),
    deleteVector: raw.prepare("DELETE FROM record_vectors WHERE record_id = ? AND vector_settings_id = ?"),
    refreshStatus: raw.prepare(
      `UPDATE records SET status = CASE WHEN (SELECT count(*) FROM responses WHERE responses.record_id = records.id AND responses.status = 'submitted') >= ? THEN 'completed' ELSE 'pending' END WHERE id = ?`,
    ),
    touchDataset: raw.prepare("UPDATE datasets SET last_activity_at = ? WHERE id = ?"),
  };
  statementCache.set(raw, st);
  return st;
}

/**
 * SQLite: full-text rows for every record stored so far (e.g. by test seeds that insert records
 * directly): the text indexer (search/text-index.ts, migration 0014) indexes every record above its
 * mark, whatever wrote it. No-op on PostgreSQL (triggers).
 */
export async function indexRecordTexts(db: Kysely<DB>): Promise<void> {
  await textIndexFor(db)?.catchUp();
}

/** Resolves question ids (or names) and validates values; duplicate questions in one record are refused. */
export function prepareSuggestions(
  schema: DatasetSchema,
  suggestions: SuggestionCreate[],
  recordFields: Record<string, unknown> | null,
): { questionId: string; s: SuggestionCreate }[] {
  const seen = new Set<string>();
  return suggestions.map((s) => {
    const question =
      s.question_id !== undefined ? schema.questionById.get(s.question_id) : schema.questionByName.get(s.question_name ?? "");
    if (!question) {
      throw new RecordValueError(
        `record does not have valid suggestions: ${s.question_id !== undefined ? `question with id=${s.question_id}` : `question with name=${s.question_name ?? ""}`} does not exist for dataset with id=${schema.dataset.id}`,
      );
    }
    if (seen.has(question.id))
      throw new RecordValueError(`record does not have valid suggestions: found duplicate suggestions question IDs`);
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

function validateResponses(
  schema: DatasetSchema,
  item: RecordItem,
  knownUsers: Set<string>,
  recordFields: Record<string, unknown> | null,
): void {
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

export async function upsertSuggestions(
  trx: Kysely<DB>,
  rows: { id?: string; recordId: string; questionId: string; s: SuggestionCreate }[],
  timestamp: string,
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto("suggestions")
      .values(
        rows.slice(i, i + CHUNK).map((r) => ({
          id: r.id ?? newId(),
          record_id: r.recordId,
          question_id: r.questionId,
          value: JSON.stringify(r.s.value),
          score: r.s.score === undefined || r.s.score === null ? null : JSON.stringify(r.s.score),
          agent: r.s.agent ?? null,
          type: r.s.type ?? null,
          inserted_at: timestamp,
          updated_at: timestamp,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["record_id", "question_id"]).doUpdateSet((eb) => ({
          value: eb.ref("excluded.value"),
          score: eb.ref("excluded.score"),
          agent: eb.ref("excluded.agent"),
          type: eb.ref("excluded.type"),
          updated_at: eb.ref("excluded.updated_at"),
        })),
      )
      .execute();
  }
}

export async function upsertResponses(
  trx: Kysely<DB>,
  rows: {
    id?: string;
    recordId: string;
    userId: string;
    status: "submitted" | "draft" | "discarded";
    values: Record<string, unknown> | null;
  }[],
  timestamp: string,
): Promise<void> {
  for (let i = 0; i < rows.length; i += CHUNK) {
    await trx
      .insertInto("responses")
      .values(
        rows.slice(i, i + CHUNK).map((r) => ({
          id: r.id ?? newId(),
          record_id: r.recordId,
          user_id: r.userId,
          status: r.status,
          values: r.values === null ? null : JSON.stringify(r.values),
          inserted_at: timestamp,
          updated_at: timestamp,
        })),
      )
      .onConflict((oc) =>
        oc.columns(["record_id", "user_id"]).doUpdateSet((eb) => ({
          status: eb.ref("excluded.status"),
          values: eb.ref("excluded.values"),
          updated_at: eb.ref("excluded.updated_at"),
        })),
      )
      .execute();
  }
}

/** Upserts vectors per (record, vector settings); a null value removes that vector. */
export async function upsertVectors(
  trx: Kysely<DB>,
  schema: DatasetSchema,
  rows: { recordId: string; name: string; values: number[] | null }[],
): Promise<void> {
  const resolved = rows.map((r) => ({ ...r, settingsId: schema.vectorByName.get(r.name)!.id }));
  for (const r of resolved.filter((x) => x.values === null)) {
    await trx.deleteFrom("record_vectors").where("record_id", "=", r.recordId).where("vector_settings_id", "=", r.settingsId).execute();
  }
  const writes = resolved.filter((x) => x.values !== null);
  for (let i = 0; i < writes.length; i += CHUNK) {
    await trx
      .insertInto("record_vectors")
      .values(
        writes.slice(i, i + CHUNK).map((r) => ({
          vector_settings_id: r.settingsId,
          record_id: r.recordId,
          vector: encodeVector(r.values!),
          exact: vectorExact(r.values!),
        })),
      )
      .onConflict((oc) =>
        oc
          .columns(["vector_settings_id", "record_id"])
          .doUpdateSet((eb) => ({ vector: eb.ref("excluded.vector"), exact: eb.ref("excluded.exact") })),
      )
      .execute();
  }
}
