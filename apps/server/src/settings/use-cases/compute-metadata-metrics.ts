import type { Kysely } from "kysely";
import type { DB } from "../../db/schema.js";
import { tableExists } from "../../db/introspect.js";
import { isPostgres } from "../../db/dialect.js";
import { metadataNumberRange } from "../../db/postgres-queries.js";
import { numberRange, termMetrics } from "../../records/metadata-metrics.js";
import { indexedNumberRange } from "../../search/postgres-metadata-range.js";
import { countedTerms } from "../../search/postgres-metadata-terms.js";
import type { MetadataSettings } from "../metadata.js";
import type { MetadataPropertyRow } from "./find-metadata-property.js";

export type MetadataMetrics =
  | { type: "terms"; total: number; values: { term: unknown; count: number }[] }
  | { type: "integer" | "float"; min: number | null; max: number | null };

export const TERMS_METRICS_LIMIT = 250;

/** PostgreSQL: whether the index of a property's order is valid (search/postgres-metadata-sort.ts). */
export interface MetadataOrderIndexes {
  ready(datasetId: string, name: string): Promise<boolean>;
}

/**
 * Metrics of one property over `records.metadata` (empty metrics before the records migration lands). On
 * PostgreSQL a numeric range comes from the index of the property's order once it is valid (`indexes`), else
 * from every record.
 */
export async function computeMetadataMetrics(
  db: Kysely<DB>,
  property: MetadataPropertyRow,
  indexes: MetadataOrderIndexes | null = null,
): Promise<MetadataMetrics> {
  const settings = JSON.parse(property.settings) as MetadataSettings;
  const hasRecords = await tableExists(db, "records");
  if (settings.type === "terms") {
    if (!hasRecords) return { type: "terms", total: 0, values: [] };
    // PostgreSQL: the counts its triggers keep (migration 0038).
    if (isPostgres(db)) return { type: "terms", ...(await countedTerms(db, property.dataset_id, property.name, TERMS_METRICS_LIMIT)) };
    // Kept up to date per dataset and property instead of scanning every record (records/metadata-metrics.ts).
    const counts = await termMetrics(db, property.dataset_id, property.name);
    return { type: "terms", total: counts.length, values: counts.slice(0, TERMS_METRICS_LIMIT) };
  }
  if (!hasRecords) return { type: settings.type, min: null, max: null };
  const round = (v: number | null | undefined) =>
    v === null || v === undefined ? null : settings.type === "float" ? Math.round(v * 1e5) / 1e5 : v;
  if (isPostgres(db)) {
    const indexed = indexes !== null && (await indexes.ready(property.dataset_id, property.name));
    const range = await (indexed ? indexedNumberRange : metadataNumberRange)(db, property.dataset_id, property.name);
    return { type: settings.type, min: round(range.min), max: round(range.max) };
  }
  const range = await numberRange(db, property.dataset_id, property.name);
  return { type: settings.type, min: round(range.min), max: round(range.max) };
}
