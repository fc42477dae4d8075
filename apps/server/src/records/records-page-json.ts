import type { RecordOut } from "./read.js";

/** A page of records as the records list answers it (contract 3.9): its items and the dataset's record count. */
export interface RecordsPage {
  items: RecordOut[];
  total: number;
  /** When vectors were asked for: each record's `vectors` object as JSON text (vectors-json.ts), by record id. */
  vectorsJson: Map<string, string> | null;
}

/**
 * The page's JSON body as bytes: `JSON.stringify({ items, total })` of the records with their vectors, each record's
 * `vectors` spliced in as its last key (where withIncludes puts it) from its prebuilt text. A page of 256 records with
 * a 384-dimension vector (1.6 MB) cost the request thread ~15 ms in Fastify's JSON.stringify and ~7 ms writing the
 * string to the socket (UTF-8 conversion) at 1M records; bytes are written as they are.
 */
export function recordsPageJson(page: RecordsPage): Buffer {
  const items = page.items.map((record) => {
    const json = JSON.stringify(record);
    const vectors = page.vectorsJson?.get(record.id);
    return vectors === undefined ? json : `${json.slice(0, -1)},"vectors":${vectors}}`;
  });
  return Buffer.from(`{"items":[${items.join(",")}],"total":${JSON.stringify(page.total)}}`);
}
