import { stringify } from "csv-stringify/sync";
import { ByteWriter, ParquetWriter } from "hyparquet-writer";
import { rawJsonOf, type ExportRecord } from "./export-records.js";
import { csvCell, type FlatColumn } from "./flat-columns.js";

export const EXPORT_FORMATS = ["jsonl", "csv", "parquet"] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export const CONTENT_TYPES: Record<ExportFormat, string> = {
  jsonl: "application/x-ndjson; charset=utf-8",
  csv: "text/csv; charset=utf-8",
  parquet: "application/vnd.apache.parquet",
};

type Pages = AsyncIterable<ExportRecord[]>;

/**
 * JSON Lines: one `ExportRecord` per line. Fields and metadata stored as JSON text are copied as
 * they are when the caller sees every metadata key (rawJsonOf), instead of stringified again.
 */
export async function* jsonLines(pages: Pages): AsyncGenerator<string> {
  for await (const page of pages) {
    let chunk = "";
    for (const record of page) {
      const raw = rawJsonOf(record);
      if (!raw) {
        chunk += `${JSON.stringify(record)}\n`;
        continue;
      }
      // written out key by key (no intermediate object): the stored fields and metadata as they are
      let line = `{"fields":${raw.fields},"metadata":${raw.metadata ?? "{}"},"id":${JSON.stringify(record.id)},"external_id":${JSON.stringify(record.external_id)},"status":${JSON.stringify(record.status)},"inserted_at":${JSON.stringify(record.inserted_at)},"updated_at":${JSON.stringify(record.updated_at)}`;
      if (record.vectors) line += `,"vectors":${JSON.stringify(record.vectors)}`;
      line += `,"suggestions":${JSON.stringify(record.suggestions)},"responses":${JSON.stringify(record.responses)}`;
      if (record.final_answer !== undefined) line += `,"final_answer":${JSON.stringify(record.final_answer)}`;
      chunk += `${line}}\n`;
    }
    yield chunk;
  }
}

/** CSV (RFC 4180, header row first, UTF-8 with a byte order mark so spreadsheets read accents). */
export async function* csv(pages: Pages, columns: FlatColumn[]): AsyncGenerator<string> {
  yield `\uFEFF${stringify([columns.map((c) => c.name)])}`;
  for await (const page of pages) yield stringify(page.map((record) => columns.map((c) => csvCell(c.value(record)))));
}

/** A hyparquet-writer `Writer` that hands each flushed row group to the stream instead of keeping the file. */
class ChunkWriter extends ByteWriter {
  readonly chunks: Buffer[] = [];
  flush(): void {
    if (this.index === 0) return;
    this.chunks.push(Buffer.from(this.buffer.slice(0, this.index)));
    this.index = 0;
  }
  override finish(): void {
    this.flush();
  }
  take(): Buffer[] {
    return this.chunks.splice(0);
  }
}

/** Records per Parquet row group (memory per group is bounded by this many records). */
const ROW_GROUP = 10_000;

/** Parquet: the flat columns, one row group per `ROW_GROUP` records, flushed as it is written. */
export async function* parquet(pages: Pages, columns: FlatColumn[]): AsyncGenerator<Buffer> {
  const writer = new ChunkWriter();
  const schema = [
    { name: "root", num_children: columns.length },
    ...columns.map((c) =>
      c.kind === "number"
        ? { name: c.name, type: "DOUBLE" as const, repetition_type: "OPTIONAL" as const }
        : c.kind === "json"
          ? { name: c.name, type: "BYTE_ARRAY" as const, converted_type: "JSON" as const, repetition_type: "OPTIONAL" as const }
          : { name: c.name, type: "BYTE_ARRAY" as const, converted_type: "UTF8" as const, repetition_type: "OPTIONAL" as const },
    ),
  ];
  const pq = new ParquetWriter({ writer, schema, createdBy: "tessera" });
  writer.flush(); // the magic bytes go out at once: the download starts before the first row group is encoded
  let group: ExportRecord[] = [];
  const writeGroup = () => {
    if (group.length === 0) return;
    pq.write({
      columnData: columns.map((c) => ({
        name: c.name,
        data: group.map((r) => {
          const v = c.value(r);
          return v === undefined ? null : v;
        }),
      })),
      rowGroupSize: group.length,
    });
    group = [];
  };
  yield* writer.take();
  for await (const page of pages) {
    group.push(...page);
    if (group.length >= ROW_GROUP) {
      writeGroup();
      yield* writer.take();
    }
  }
  writeGroup();
  pq.finish();
  yield* writer.take();
}
