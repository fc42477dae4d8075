import type { Kysely, Selectable } from "kysely";
import type { DB, RecordsTable, ResponsesTable, SuggestionsTable } from "../db/schema.js";
import type { DatasetSchema } from "./dataset-schema.js";
import { vectorRows } from "./vector-rows.js";
import { visibleMetadata, type RecordViewer } from "./visibility.js";

/** Wire shapes of records, responses and suggestions (contract 3.9, 3.11, 3.12) and the batched include loader. */
export type RecordRow = Selectable<RecordsTable>;
export type ResponseRow = Selectable<ResponsesTable>;
export type SuggestionRow = Selectable<SuggestionsTable>;

const json = (text: string | null): unknown => (text === null ? null : (JSON.parse(text) as unknown));

export interface ResponseOut {
  id: string;
  values: Record<string, { value: unknown }> | null;
  status: string;
  record_id: string;
  user_id: string;
  inserted_at: string;
  updated_at: string;
}
export const responseOut = (r: ResponseRow): ResponseOut => ({
  id: r.id,
  values: json(r.values) as ResponseOut["values"],
  status: r.status,
  record_id: r.record_id,
  user_id: r.user_id,
  inserted_at: r.inserted_at,
  updated_at: r.updated_at,
});

export const suggestionOut = (s: SuggestionRow) => ({
  id: s.id,
  question_id: s.question_id,
  type: s.type,
  value: json(s.value),
  agent: s.agent,
  score: json(s.score) as number | number[] | null,
  inserted_at: s.inserted_at,
  updated_at: s.updated_at,
});
export type SuggestionOut = ReturnType<typeof suggestionOut>;

export interface RecordOut {
  id: string;
  status: string;
  fields: Record<string, unknown>;
  metadata: Record<string, unknown> | null;
  external_id: string | null;
  responses?: ResponseOut[];
  suggestions?: SuggestionOut[];
  vectors?: Record<string, number[]>;
  dataset_id: string;
  inserted_at: string;
  updated_at: string;
}

export const recordOut = (r: RecordRow): RecordOut => ({
  id: r.id,
  status: r.status,
  fields: json(r.fields) as Record<string, unknown>,
  metadata: json(r.metadata) as Record<string, unknown> | null,
  external_id: r.external_id,
  dataset_id: r.dataset_id,
  inserted_at: r.inserted_at,
  updated_at: r.updated_at,
});

/**
 * float32 blob codec for record vectors (what similarity search reads). Decoding returns the shortest
 * decimal that maps to the same float32 (0.1 stays 0.1): the value sent when it had at most 6
 * significant digits. Other values come back exactly through `record_vectors.exact` (vectorExact).
 */
export function encodeVector(values: number[]): Buffer {
  const floats = new Float32Array(values.length);
  for (let i = 0; i < values.length; i++) floats[i] = values[i]!; // an indexed loop: ~2x faster than new Float32Array(array)
  return Buffer.from(floats.buffer);
}
export function decodeVector(blob: Buffer | Uint8Array): number[] {
  const floats = new Float32Array(Uint8Array.from(blob).buffer);
  const out = new Array<number>(floats.length);
  for (let i = 0; i < floats.length; i++) out[i] = shortestDecimal(floats[i]!);
  return out;
}

/**
 * The shortest decimal (as a number) that maps to the float32 `f`: the first of `f.toPrecision(1..9)` that does.
 * A normal float32 prints back every decimal of at most 6 significant digits that maps to it (FLT_DIG), so at most
 * one such decimal maps to it: when the decimal at 6 decimal places (|f| < 1, no string) or at 6 significant digits
 * maps to `f`, it is the shortest one. An SDK page of 256 records with a 384-dimension vector: 130-170 ms of CPU on
 * the request thread with the loop from 1 digit on (~5 `toPrecision` a value), 6-20 ms so.
 */
export function shortestDecimal(f: number): number {
  const a = Math.abs(f);
  let from = 1;
  if (a >= FLOAT32_MIN_NORMAL && a <= FLOAT32_MAX) {
    if (a < 1) {
      const decimals = Math.round(f * 1e6) / 1e6;
      if (Math.fround(decimals) === f) return decimals;
    }
    const six = Number(f.toPrecision(6));
    if (Math.fround(six) === f) return six;
    from = 7;
  }
  for (let p = from; p <= 9; p++) {
    const candidate = Number(f.toPrecision(p));
    if (Math.fround(candidate) === f) return candidate;
  }
  return f;
}

/** `record_vectors.exact` of a vector whose values are float32 values (a model's embeddings): its blob's floats as they are. */
export const EXACT_FLOAT32 = "f32";
const FLOAT32_MIN_NORMAL = 1.1754943508222875e-38;
const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * Whether decodeVector gives `x` back: `x` has at most 6 significant digits (float32 keeps 6, so no
 * shorter decimal maps to its float32) and is a normal float32. The common case (|x| < 1, at most 6
 * decimals, as rounded embeddings are) costs no string conversion.
 */
function shortestGivesBack(x: number): boolean {
  if (x === 0) return true;
  const a = Math.abs(x);
  if (a < FLOAT32_MIN_NORMAL || a > FLOAT32_MAX) return false;
  if (a < 1 && Math.round(x * 1e6) / 1e6 === x) return true;
  return Number(x.toPrecision(6)) === x;
}

/**
 * What `record_vectors.exact` keeps so that a vector comes back exactly as it was sent (the SDK
 * compares the float64 values it logged): null when decodeVector gives every value back,
 * EXACT_FLOAT32 when every value is a float32, else the values as JSON (shortest round-trip text).
 */
export function vectorExact(values: number[]): string | null {
  let shortest = true;
  let float32 = true;
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    if (float32 && Math.fround(x) !== x) float32 = false;
    if (shortest && !shortestGivesBack(x)) shortest = false;
    if (!shortest && !float32) return JSON.stringify(values);
  }
  return shortest ? null : EXACT_FLOAT32;
}

/** A stored vector's values as they were sent (see vectorExact). */
export function storedVector(vector: Buffer | Uint8Array, exact: string | null): number[] {
  if (exact === null) return decodeVector(vector);
  if (exact === EXACT_FLOAT32) return Array.from(new Float32Array(Uint8Array.from(vector).buffer));
  return JSON.parse(exact) as number[];
}

export interface Include {
  responses: boolean;
  suggestions: boolean;
  /** null: no vectors; "all"; or the names to include. */
  vectors: null | "all" | string[];
}
export const NO_INCLUDE: Include = { responses: false, suggestions: false, vectors: null };
export const FULL_INCLUDE: Include = { responses: true, suggestions: true, vectors: "all" };

/** The names of the vector settings `include` asks for, by settings id. */
export function wantedVectors(schema: DatasetSchema, include: Include): Map<string, string> {
  const wanted = schema.vectorSettings.filter((v) => include.vectors === "all" || (include.vectors?.includes(v.name) ?? false));
  return new Map(wanted.map((v) => [v.id, v.name]));
}

/** Records whose parts one statement reads. */
export const INCLUDE_CHUNK = 500;

export const chunks = <T>(items: T[], size: number): T[][] => {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
};

/** Responses and suggestions read with the records' rows (records-with-includes.ts), by record id: withIncludes reads them no more. */
export interface PreloadedParts {
  responses?: Map<string, ResponseRow[]>;
  suggestions?: Map<string, SuggestionRow[]>;
}

/**
 * Serializes records with the requested parts, in one query per part (no N+1), as `viewer` may see
 * them (records/visibility.ts: only their own responses and visible metadata for annotators). Parts
 * in `preloaded` must have been read for that viewer already (only its own responses when "own").
 */
export async function withIncludes(
  db: Kysely<DB>,
  schema: DatasetSchema,
  rows: RecordRow[],
  include: Include,
  viewer: RecordViewer,
  preloaded: PreloadedParts = {},
): Promise<RecordOut[]> {
  const records = rows.map(recordOut);
  if (records.length === 0) return records;
  if (viewer.metadata !== "all") for (const r of records) r.metadata = visibleMetadata(schema, viewer, r.metadata);
  const responsesOf = viewer.responses === "own" ? viewer.userId : null;
  const ids = records.map((r) => r.id);
  const byId = new Map(records.map((r) => [r.id, r]));
  for (const part of chunks(ids, INCLUDE_CHUNK)) {
    if (include.responses && preloaded.responses) {
      for (const id of part) byId.get(id)!.responses = (preloaded.responses.get(id) ?? []).map(responseOut);
    } else if (include.responses) {
      for (const r of records) r.responses ??= [];
      let query = db.selectFrom("responses").selectAll().where("record_id", "in", part);
      if (responsesOf !== null) query = query.where("user_id", "=", responsesOf);
      for (const row of await query.orderBy("inserted_at").execute()) byId.get(row.record_id)!.responses!.push(responseOut(row));
    }
    if (include.suggestions && preloaded.suggestions) {
      for (const id of part) byId.get(id)!.suggestions = (preloaded.suggestions.get(id) ?? []).map(suggestionOut);
    } else if (include.suggestions) {
      for (const r of records) r.suggestions ??= [];
      const rows2 = await db.selectFrom("suggestions").selectAll().where("record_id", "in", part).orderBy("inserted_at").execute();
      for (const row of rows2) byId.get(row.record_id)!.suggestions!.push(suggestionOut(row));
    }
    if (include.vectors) {
      for (const r of records) r.vectors ??= {};
      const names = wantedVectors(schema, include);
      if (names.size === 0) continue;
      for (const row of await vectorRows(db, part, [...names.keys()]))
        byId.get(row.record_id)!.vectors![names.get(row.vector_settings_id)!] = storedVector(row.vector, row.exact);
    }
  }
  return records;
}
