import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { followMetrics, numberRange, termMetrics } from "../records/metadata-metrics.js";
import { backgroundErrorLogger } from "../db/availability.js";
import { sqliteSearchFor } from "./sqlite-search.js";
import { warmFieldPositions } from "./sqlite-text-field.js";
import { loadRowLengthsFor } from "./sqlite-row-lengths.js";

const rankingError = backgroundErrorLogger("ranking the frequent words ahead");

/**
 * What the first opening of the annotation page, the first metadata filter and the first similarity
 * search of a freshly written dataset would otherwise compute while a user waits: the metadata
 * properties' metrics (asked by the page on opening; at 1M records ~1 s of CPU per property), their
 * in-memory filter columns (~4 s at 1M) and the similarity codes of its vector settings (~5 s at 1M
 * vectors). Run by the text indexer once it has caught up and no records were
 * written for a while (TextIndex.onIdle), in short transactions so that requests interleave.
 * After an import most of it is already there (followWrites below keeps it up to date batch by
 * batch), so what is left is the last batch; in full it runs after a restart or a metadata change.
 * SQLite only (the PostgreSQL store computes both in the database).
 */
export async function warmUpDatasets(db: Kysely<DB>, datasetIds: string[]): Promise<void> {
  const settled: string[] = [];
  for (const datasetId of datasetIds) {
    const filterable: string[] = [];
    for (const { name, kind } of await metadataOf(db, datasetId)) {
      if (kind === "terms") await termMetrics(db, datasetId, name);
      else await numberRange(db, datasetId, name);
      filterable.push(name);
    }
    // The similarity codes before the filter columns: a similarity search loads missing codes while the
    // user waits (~4.5 s at 1M), a metadata filter loads its columns in steps (~4 s, other requests run).
    const settings = await db.selectFrom("vectors_settings").select("id").where("dataset_id", "=", datasetId).execute();
    for (const s of settings) await sqliteSearchFor(db).warmVectors(s.id);
    await sqliteSearchFor(db).warmMetadata(datasetId, filterable);
    settled.push(...settings.map((s) => s.id));
  }
  // The settled index's frequent words, ranked on the read threads (issue 31); not awaited
  // (minutes at 1M records). After the similarity indexes that the writes called for: ranking on both
  // cores tripled their build after a 300K import (3 s of IVF, 8 s of far side: ready 14 s after the
  // last batch instead of ~5).
  void (async () => {
    // Where each field is in every record (sqlite-text-field.ts: a word in one field), ~0.3 s of a read thread at 1M.
    for (const id of datasetIds) await warmFieldPositions(db, id);
    for (const id of settled) await sqliteSearchFor(db).similarityIndexSettled(id);
    // Every FTS row's length on each read thread (~260 ms of each at 1M records): a word's deep pages read them there.
    await loadRowLengthsFor(db);
    await sqliteSearchFor(db).rankFrequentWords();
  })().catch((error: unknown) => {
    if (!String(error).includes("closed")) rankingError(error);
  });
}

/** The dataset's metadata properties that have metrics and filter columns: terms, integer, float. */
async function metadataOf(db: Kysely<DB>, datasetId: string): Promise<{ name: string; kind: "terms" | "range" }[]> {
  const properties = await db.selectFrom("metadata_properties").select(["name", "settings"]).where("dataset_id", "=", datasetId).execute();
  return properties.flatMap((p): { name: string; kind: "terms" | "range" }[] => {
    const type = (JSON.parse(p.settings) as { type?: string }).type;
    return type === "terms"
      ? [{ name: p.name, kind: "terms" }]
      : type === "integer" || type === "float"
        ? [{ name: p.name, kind: "range" }]
        : [];
  });
}

/** Per store: datasets whose follow-up runs, and what the follow-ups did (diagnostics, tests). */
const following = new WeakMap<object, { running: Set<string>; runs: number; metrics: number; metadata: number }>();

/** What the follow-ups after writes did on this store: runs, metrics brought up to date, metadata columns brought up to date. */
export function followStats(db: Kysely<DB>): { runs: number; metrics: number; metadata: number } {
  const f = following.get(db);
  return { runs: f?.runs ?? 0, metrics: f?.metrics ?? 0, metadata: f?.metadata ?? 0 };
}

/**
 * After a bulk write's response (server.ts, records/write-hooks.ts): what the warm-up keeps, brought
 * up to date with the batch while the client prepares its next one, where that is incremental (or the
 * dataset small, i.e. from the start of an import): the similarity codes (SqliteKnn.follow), the
 * metrics (followMetrics) and the metadata columns with the record statuses (SqliteMetadata.follow).
 * The warm-up after the import then has the last batch left, instead of ~1 s per property of metrics
 * and ~4 s of columns at 1M records, during which it held the connection one transaction at a time
 * and delayed the first calls after the import (a similarity query: 572 ms, profiled). A write that
 * arrives while a follow-up of the dataset runs needs no second one (the next write catches up).
 */
export async function followWrites(db: Kysely<DB>, datasetId: string): Promise<void> {
  let f = following.get(db);
  if (!f) {
    f = { running: new Set(), runs: 0, metrics: 0, metadata: 0 };
    following.set(db, f);
  }
  if (f.running.has(datasetId)) return;
  f.running.add(datasetId);
  try {
    const search = sqliteSearchFor(db);
    await search.followWrites(datasetId);
    const properties = await metadataOf(db, datasetId);
    for (const { name, kind } of properties) if (await followMetrics(db, datasetId, name, kind)) f.metrics++;
    if (
      await search.followMetadata(
        datasetId,
        properties.map((p) => p.name),
      )
    )
      f.metadata++;
    f.runs++;
  } finally {
    f.running.delete(datasetId);
  }
}
