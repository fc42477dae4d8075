import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { numberRange, termMetrics } from "../records/metadata-metrics.js";
import { sqliteSearchFor } from "./sqlite-search.js";

/**
 * What the first opening of the annotation page, the first metadata filter and the first similarity
 * search of a freshly written dataset would otherwise compute while a user waits: the metadata
 * properties' metrics (asked by the page on opening; at 1M records ~1 s of CPU per property), their
 * in-memory filter columns (~4 s at 1M) and the similarity codes of its vector settings (~5 s at 1M
 * vectors). Run by the text indexer once it has caught up and no records were
 * written for a while (TextIndex.onIdle), in short transactions so that requests interleave.
 * SQLite only (the PostgreSQL store computes both in the database).
 */
export async function warmUpDatasets(db: Kysely<DB>, datasetIds: string[]): Promise<void> {
  for (const datasetId of datasetIds) {
    const properties = await db.selectFrom("metadata_properties").select(["name", "settings"]).where("dataset_id", "=", datasetId).execute();
    const filterable: string[] = [];
    for (const property of properties) {
      const type = (JSON.parse(property.settings) as { type?: string }).type;
      if (type === "terms") await termMetrics(db, datasetId, property.name);
      else if (type === "integer" || type === "float") await numberRange(db, datasetId, property.name);
      else continue;
      filterable.push(property.name);
    }
    // The similarity codes before the filter columns: a similarity search loads missing codes while the
    // user waits (~4.5 s at 1M), a metadata filter loads its columns in steps (~4 s, other requests run).
    const settings = await db.selectFrom("vectors_settings").select("id").where("dataset_id", "=", datasetId).execute();
    for (const s of settings) await sqliteSearchFor(db).warmVectors(s.id);
    await sqliteSearchFor(db).warmMetadata(datasetId, filterable);
  }
}
