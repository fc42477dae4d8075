import { createReadStream } from "node:fs";
import { createInterface } from "node:readline";
import { parse as csvParser, CsvError } from "csv-parse";
import { none } from "stream-chain/defs.js";
import gen from "stream-chain/gen.js";
import { parser } from "stream-json/parser.js";
import streamArray from "stream-json/streamers/stream-array.js";
import { asyncBufferFromFile, parquetMetadataAsync, parquetReadObjects } from "hyparquet";
import type { UploadConfig } from "./config.js";

export const UPLOAD_FORMATS = ["csv", "tsv", "jsonl", "json", "parquet"] as const;
export type UploadFormat = (typeof UPLOAD_FORMATS)[number];

/** A file that cannot be read as its format: the message names the row (1 = first data row) and, when known, the column. */
export class FileFormatError extends Error {
  override name = "FileFormatError";
  constructor(
    readonly row: number | null,
    readonly column: string | null,
    detail: string,
  ) {
    super(`${row !== null ? `Row ${row}` : "The file"}${column !== null ? `, column \`${column}\`` : ""}: ${detail}`);
  }
}

export function formatOf(filename: string): UploadFormat | null {
  const ext = /\.([a-z]+)$/i.exec(filename)?.[1]?.toLowerCase();
  if (ext === "ndjson") return "jsonl";
  if (ext === "pq") return "parquet";
  return (UPLOAD_FORMATS as readonly string[]).includes(ext ?? "") ? (ext as UploadFormat) : null;
}

export interface FileRow {
  row: number;
  values: Record<string, unknown>;
}
/** How far a reader is: bytes read of a text file, or the total rows of a Parquet file. */
export interface ReadProgress {
  bytes: number;
  totalRows: number | null;
}

/** A Tessera JSON Lines export line (`fields`, `responses`, …) in the flat shape of the CSV and Parquet exports. */
export function flattenExportShape(value: Record<string, unknown>): Record<string, unknown> {
  const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
  if (!isObject(value.fields) || !Array.isArray(value.responses)) return value;
  const out: Record<string, unknown> = {};
  for (const key of ["id", "external_id", "status", "inserted_at", "updated_at"]) if (key in value) out[key] = value[key];
  for (const [k, v] of Object.entries(value.fields)) out[k in out ? `field.${k}` : k] = v;
  if (isObject(value.metadata)) for (const [k, v] of Object.entries(value.metadata)) out[`metadata.${k}`] = v;
  if (isObject(value.vectors)) for (const [k, v] of Object.entries(value.vectors)) out[`vector.${k}`] = v;
  const responses = value.responses.filter(isObject) as Array<{
    username?: string;
    user_id?: string;
    status?: string;
    values?: Record<string, unknown>;
  }>;
  const questions = new Set<string>(isObject(value.suggestions) ? Object.keys(value.suggestions) : []);
  for (const r of responses) for (const q of Object.keys(r.values ?? {})) questions.add(q);
  const final = isObject(value.final_answer) ? value.final_answer : null;
  const finalValues = final && isObject(final.values) ? final.values : null;
  for (const q of Object.keys(finalValues ?? {})) questions.add(q);
  for (const q of questions) {
    const answering = responses.filter((r) => r.values && q in r.values);
    out[`${q}.responses`] = answering.map((r) => r.values![q]);
    out[`${q}.responses.users`] = answering.map((r) => r.username ?? r.user_id);
    out[`${q}.responses.status`] = answering.map((r) => r.status);
    const s = isObject(value.suggestions) && isObject(value.suggestions[q]) ? value.suggestions[q] : null;
    out[`${q}.suggestion`] = s?.value ?? null;
    out[`${q}.suggestion.score`] = s?.score ?? null;
    out[`${q}.suggestion.agent`] = s?.agent ?? null;
    if (finalValues) out[`${q}.final`] = finalValues[q] ?? null;
  }
  if (final) {
    out["final_answer.reviewer"] = final.reviewer ?? null;
    out["final_answer.updated_at"] = final.updated_at ?? null;
  }
  return out;
}

const REPLACEMENT = "\uFFFD";
function checkText(row: number, values: Record<string, unknown>): void {
  for (const [column, value] of Object.entries(values)) {
    if (typeof value === "string" && value.includes(REPLACEMENT))
      throw new FileFormatError(row, column, "the text is not valid UTF-8 (save the file as UTF-8)");
  }
}

async function* delimited(path: string, delimiter: string, fromRow: number, progress: ReadProgress): AsyncGenerator<FileRow> {
  const input = createReadStream(path);
  const parser = input.pipe(csvParser({ columns: true, bom: true, delimiter, skip_empty_lines: true }));
  let row = 0;
  try {
    for await (const values of parser as AsyncIterable<Record<string, string>>) {
      row += 1;
      if (row < fromRow) continue;
      progress.bytes = input.bytesRead;
      checkText(row, values);
      yield { row, values };
    }
  } catch (error) {
    if (error instanceof CsvError) {
      const line = (error as CsvError & { lines?: number }).lines;
      const detail =
        error.code === "CSV_RECORD_INCONSISTENT_COLUMNS" || error.code === "CSV_RECORD_INCONSISTENT_FIELDS_LENGTH"
          ? "the row does not have as many columns as the header"
          : error.message;
      throw new FileFormatError(line !== undefined ? Math.max(1, line - 1) : row + 1, null, detail);
    }
    throw error;
  } finally {
    parser.destroy();
  }
}

async function* jsonLines(path: string, fromRow: number, progress: ReadProgress): AsyncGenerator<FileRow> {
  const input = createReadStream(path, { encoding: "utf8" });
  const lines = createInterface({ input, crlfDelay: Infinity });
  let row = 0;
  try {
    for await (const line of lines) {
      const text = row === 0 ? line.replace(/^\uFEFF/, "") : line;
      if (text.trim() === "") continue;
      row += 1;
      if (row < fromRow) continue;
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new FileFormatError(row, null, `not valid JSON (${(error as Error).message})`);
      }
      if (typeof value !== "object" || value === null || Array.isArray(value))
        throw new FileFormatError(row, null, "each line must be a JSON object");
      const values = flattenExportShape(value as Record<string, unknown>);
      checkText(row, values);
      progress.bytes = input.bytesRead;
      yield { row, values };
    }
  } finally {
    lines.close();
    input.destroy();
  }
}

/** A JSON text that stream-json cannot parse (not a file error). */
const isSyntaxError = (error: unknown) => error instanceof Error && (error as NodeJS.ErrnoException).code === undefined;

/**
 * The elements of a JSON array file, parsed as a stream (stream-json's parser and array streamer
 * driven a file chunk at a time: one element assembled at a time, never the whole file). The parser
 * throws on a chunk before yielding its elements, so on a syntax error the file is read again with
 * the failing chunk fed a byte at a time: every element before the error is yielded, and the error
 * comes right after them (its row is exact). That second pass happens only for a broken file.
 */
async function* arrayElements(path: string, progress: ReadProgress): AsyncGenerator<unknown> {
  const pipeline = () => gen(parser(), streamArray()) as (chunk: unknown) => AsyncIterable<{ value: unknown }>;
  let yielded = 0;
  let failing = 0;
  const first = pipeline();
  const input = createReadStream(path);
  try {
    for await (const chunk of input as AsyncIterable<Buffer>) {
      for await (const { value } of first(chunk)) {
        yielded += 1;
        yield value;
      }
      failing += 1;
      progress.bytes = input.bytesRead;
    }
    for await (const { value } of first(none)) {
      yielded += 1;
      yield value;
    }
    return;
  } catch (error) {
    if (!isSyntaxError(error)) throw error;
  } finally {
    input.destroy();
  }
  const again = pipeline();
  let seen = 0;
  let index = 0;
  const retry = createReadStream(path);
  try {
    for await (const chunk of retry as AsyncIterable<Buffer>) {
      const pieces = index === failing ? Array.from({ length: chunk.length }, (_, i) => chunk.subarray(i, i + 1)) : [chunk];
      for (const piece of pieces) for await (const { value } of again(piece)) if (++seen > yielded) yield value;
      index += 1;
    }
    for await (const { value } of again(none)) if (++seen > yielded) yield value;
  } finally {
    retry.destroy();
  }
}

/** A JSON array of objects, streamed (`arrayElements`): bounded only by the upload limit like the other formats. */
async function* jsonArray(path: string, fromRow: number, progress: ReadProgress): AsyncGenerator<FileRow> {
  let row = 0;
  try {
    for await (const value of arrayElements(path, progress)) {
      row += 1;
      if (row < fromRow) continue;
      if (typeof value !== "object" || value === null || Array.isArray(value))
        throw new FileFormatError(row, null, "each item must be a JSON object");
      const values = flattenExportShape(value as Record<string, unknown>);
      checkText(row, values);
      yield { row, values };
    }
  } catch (error) {
    if (error instanceof FileFormatError || !isSyntaxError(error)) throw error;
    const message = (error as Error).message;
    if (/top-level object should be an array/i.test(message))
      throw new FileFormatError(null, null, "a JSON file must hold an array of objects");
    throw new FileFormatError(row + 1, null, `not valid JSON (${message})`);
  }
}

/** Parquet, one row group at a time (the largest decompressed group is bounded by the configuration). */
async function* parquetRows(path: string, fromRow: number, config: UploadConfig, progress: ReadProgress): AsyncGenerator<FileRow> {
  const file = await asyncBufferFromFile(path);
  let metadata;
  try {
    metadata = await parquetMetadataAsync(file);
  } catch (error) {
    throw new FileFormatError(null, null, `not a Parquet file (${(error as Error).message})`);
  }
  progress.totalRows = Number(metadata.num_rows);
  let start = 0;
  for (const [index, group] of metadata.row_groups.entries()) {
    const rows = Number(group.num_rows);
    const end = start + rows;
    const bytes = Number(group.total_byte_size);
    if (bytes > config.parquetGroupMaxBytes)
      throw new FileFormatError(
        start + 1,
        null,
        `row group ${index + 1} would take ${bytes} bytes once decompressed, over the limit of ${config.parquetGroupMaxBytes}`,
      );
    if (end >= fromRow) {
      let objects: Record<string, unknown>[];
      try {
        objects = (await parquetReadObjects({ file, metadata, rowStart: start, rowEnd: end })) as Record<string, unknown>[];
      } catch (error) {
        throw new FileFormatError(start + 1, null, `the Parquet data cannot be read (${(error as Error).message})`);
      }
      for (const [i, values] of objects.entries()) {
        const row = start + i + 1;
        if (row < fromRow) continue;
        for (const [k, v] of Object.entries(values)) if (typeof v === "bigint") values[k] = Number(v);
        checkText(row, values);
        yield { row, values };
      }
    }
    start = end;
  }
}

/** The data rows of a file from `fromRow` on (1-based), in order; a malformed file throws FileFormatError. */
export function readRows(
  path: string,
  format: UploadFormat,
  config: UploadConfig,
  fromRow = 1,
  progress: ReadProgress = { bytes: 0, totalRows: null },
): AsyncGenerator<FileRow> {
  switch (format) {
    case "csv":
      return delimited(path, ",", fromRow, progress);
    case "tsv":
      return delimited(path, "\t", fromRow, progress);
    case "jsonl":
      return jsonLines(path, fromRow, progress);
    case "json":
      return jsonArray(path, fromRow, progress);
    case "parquet":
      return parquetRows(path, fromRow, config, progress);
  }
}
