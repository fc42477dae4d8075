import { sql, type Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import type { DatasetSchema } from "../../records/dataset-schema.js";
import { decodeVector } from "../../records/read.js";
import type { SearchFilter, SearchPort, SearchQuery } from "../../search/search-port.js";
import type { RecordView } from "./record-view.js";

/** One exported record (the JSON Lines shape; docs/api.md "Record exports"). */
export interface ExportRecord {
  id: string;
  external_id: string | null;
  status: string;
  inserted_at: string;
  updated_at: string;
  fields: Record<string, unknown>;
  metadata: Record<string, unknown>;
  vectors?: Record<string, number[]>;
  /** By question name. */
  suggestions: Record<string, { value: unknown; score: unknown; agent: string | null }>;
  responses: ExportResponse[];
  /**
   * The reviewer's settled answer (issue 22), by question name, with who set it and when; null when
   * the record has none. Only for callers who see every response (owners and admins of the
   * workspace): an annotator's export has no `final_answer` key at all.
   */
  final_answer?: ExportFinalAnswer | null;
}
export interface ExportFinalAnswer {
  values: Record<string, unknown>;
  reviewer: string | null;
  updated_at: string;
}
export interface ExportResponse {
  user_id: string;
  username: string | null;
  status: string;
  values: Record<string, unknown>;
  updated_at: string;
}

export interface ExportSelection {
  /** The annotation page's criteria (text and filters of the `/me` search; response scopes refer to `userId`). */
  text: SearchQuery["text"];
  filters: SearchFilter[];
  userId: string;
  vectors: boolean;
  /**
   * The encoder copies the stored JSON of fields and metadata when the caller sees all of it (JSON
   * Lines): then they are not parsed at all (`fields` and `metadata` are left empty; `rawJsonOf` has them).
   */
  rawJson?: boolean;
}

export interface ExportSource {
  db: Kysely<DB>;
  search: SearchPort;
  schema: DatasetSchema;
  view: RecordView;
}

/** Records read from the store per step (one cursor step, by `seq`). */
export const EXPORT_PAGE = 2000;

/** The stored JSON texts of a record's fields and metadata, kept when the caller may see all of it (JSON Lines copies them). */
const rawJson = new WeakMap<ExportRecord, { fields: string; metadata: string | null }>();
export const rawJsonOf = (record: ExportRecord) => rawJson.get(record);
const UNPARSED: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>;

const parse = (text: string | null): unknown => (text === null ? null : (JSON.parse(text) as unknown));

/**
 * The records of a dataset that match the selection, in insertion order, a page at a time: a
 * cursor over `records.seq` (never an offset), each page narrowed to the matching ids by the search
 * port when there are criteria, then its responses, suggestions and vectors in one query each, cut
 * to what the caller's `RecordView` allows.
 */
export async function* exportRecordPages(
  source: ExportSource,
  selection: ExportSelection,
  page = EXPORT_PAGE,
): AsyncGenerator<ExportRecord[]> {
  const { db, schema, view } = source;
  const datasetId = schema.dataset.id;
  const questionName = new Map(schema.questions.map((q) => [q.id, q.name]));
  const vectorName = new Map(schema.vectorSettings.map((v) => [v.id, v.name]));
  const usernames = new Map<string, string>();
  const narrowed = selection.text !== null || selection.filters.length > 0;
  let cursor = -1;
  const base = db.selectFrom("records").where("dataset_id", "=", datasetId);
  const fullRows = (narrow: (q: typeof base) => typeof base) =>
    narrow(base).select(["seq", "id", "external_id", "status", "fields", "metadata", "inserted_at", "updated_at"]).orderBy("seq").execute();
  for (;;) {
    let rows: Awaited<ReturnType<typeof fullRows>>;
    // With criteria: the step's ids first, then the full rows (fields, metadata) of the matching ones only.
    if (narrowed) {
      const step = await base.select(["seq", "id"]).where("seq", ">", cursor).orderBy("seq").limit(page).execute();
      if (step.length === 0) return;
      cursor = step[step.length - 1]!.seq;
      const result = await source.search.search({
        datasetId,
        userId: selection.userId,
        text: selection.text,
        vector: null,
        sort: [],
        offset: 0,
        limit: step.length,
        filters: [...selection.filters, { type: "terms", scope: { entity: "record", property: "id" }, values: step.map((r) => r.id) }],
        // No total: the export reads the hits only (search-port.ts).
        hitsOnly: true,
      });
      const matching = new Set(result.hits.map((h) => h.recordId));
      const seqs = step.filter((r) => matching.has(r.id)).map((r) => r.seq);
      if (seqs.length === 0) {
        await new Promise((resolve) => setImmediate(resolve));
        continue;
      }
      // By seq (the primary key on both stores): by id SQLite walked the dataset's 1M records in seq order (3.8 s).
      rows = await fullRows((q) => q.where("seq", "in", seqs));
    } else {
      rows = await fullRows((q) => q.where("seq", ">", cursor).limit(page));
      if (rows.length === 0) return;
      cursor = rows[rows.length - 1]!.seq;
    }
    const ids = rows.map((r) => r.id);
    // the page's related rows: by the ids of its matching records, or (every record of the page
    // matches) by the page's range of `seq`, one short statement instead of 2,000 parameters
    const first = rows[0]!.seq;
    const related = narrowed
      ? (column: "record_id") => sql<boolean>`${sql.ref(column)} in (${sql.join(ids)})`
      : (column: "record_id") =>
          sql<boolean>`${sql.ref(column)} in (select id from records where dataset_id = ${datasetId} and seq >= ${first} and seq <= ${cursor})`;
    const records = new Map<string, ExportRecord>();
    const copyRaw = selection.rawJson === true && view.allMetadata;
    for (const r of rows) {
      let metadata: Record<string, unknown>;
      let hidden = false;
      if (copyRaw) metadata = UNPARSED;
      else if (view.allMetadata) metadata = (parse(r.metadata) ?? {}) as Record<string, unknown>;
      else {
        metadata = {};
        for (const [key, value] of Object.entries((parse(r.metadata) ?? {}) as Record<string, unknown>)) {
          if (view.metadataVisible(key)) metadata[key] = value;
          else hidden = true;
        }
      }
      const record: ExportRecord = {
        id: r.id,
        external_id: r.external_id,
        status: r.status,
        inserted_at: r.inserted_at,
        updated_at: r.updated_at,
        fields: copyRaw ? UNPARSED : (parse(r.fields) as Record<string, unknown>),
        metadata,
        ...(selection.vectors ? { vectors: {} } : {}),
        suggestions: {},
        responses: [],
        ...(view.finalAnswers ? { final_answer: null } : {}),
      };
      if (selection.rawJson && !hidden) rawJson.set(record, { fields: r.fields, metadata: r.metadata });
      records.set(r.id, record);
    }
    let responses = db
      .selectFrom("responses")
      .select(["record_id", "user_id", "status", "values", "updated_at"])
      .where(related("record_id"));
    if (view.responsesOf !== null) responses = responses.where("user_id", "=", view.responsesOf);
    const responseRows = await responses.orderBy("inserted_at").orderBy("user_id").execute();
    const unknownUsers = [...new Set(responseRows.map((r) => r.user_id).filter((id) => !usernames.has(id)))];
    if (unknownUsers.length > 0) {
      for (const u of await db.selectFrom("users").select(["id", "username"]).where("id", "in", unknownUsers).execute())
        usernames.set(u.id, u.username);
    }
    for (const r of responseRows) {
      const values: Record<string, unknown> = {};
      for (const [name, answer] of Object.entries((parse(r.values) ?? {}) as Record<string, { value: unknown }>))
        values[name] = answer?.value;
      records.get(r.record_id)!.responses.push({
        user_id: r.user_id,
        username: usernames.get(r.user_id) ?? null,
        status: r.status,
        values,
        updated_at: r.updated_at,
      });
    }
    if (view.finalAnswers) {
      const finalRows = await db
        .selectFrom("record_final_answers as f")
        .leftJoin("users as u", "u.id", "f.reviewer_id")
        .select(["f.record_id", "f.values", "u.username", "f.updated_at"])
        .where(related("record_id"))
        .execute();
      for (const f of finalRows) {
        const values: Record<string, unknown> = {};
        for (const [name, answer] of Object.entries((parse(f.values) ?? {}) as Record<string, { value: unknown }>))
          values[name] = answer?.value;
        records.get(f.record_id)!.final_answer = { values, reviewer: f.username ?? null, updated_at: f.updated_at };
      }
    }
    if (questionName.size > 0) {
      const suggestionRows = await db
        .selectFrom("suggestions")
        .select(["record_id", "question_id", "value", "score", "agent"])
        .where(related("record_id"))
        .execute();
      for (const s of suggestionRows) {
        const name = questionName.get(s.question_id);
        if (name) records.get(s.record_id)!.suggestions[name] = { value: parse(s.value), score: parse(s.score), agent: s.agent };
      }
    }
    if (selection.vectors && vectorName.size > 0) {
      const vectorRows = await db
        .selectFrom("record_vectors")
        .select(["record_id", "vector_settings_id", "vector"])
        .where(related("record_id"))
        .execute();
      for (const v of vectorRows) {
        const name = vectorName.get(v.vector_settings_id);
        if (name) records.get(v.record_id)!.vectors![name] = decodeVector(v.vector);
      }
    }
    yield [...records.values()];
    // The embedded store answers synchronously: a turn of the event loop per page lets the written
    // bytes go out and other requests run during a long export.
    await new Promise((resolve) => setImmediate(resolve));
  }
}
