import { createHash } from "node:crypto";
import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { isPostgres } from "../db/dialect.js";
import type { ReviewScope } from "./scope.js";

/**
 * The dataset's answers version: moves whenever one of its responses is written or deleted (or a
 * record with them), by the triggers of migration 0023, whichever code path or replica wrote it.
 * On PostgreSQL the versions are appended: the older rows of the dataset are deleted here.
 */
export async function answersVersion(db: Kysely<DB>, datasetId: string): Promise<number> {
  const row = await db
    .selectFrom("dataset_answer_versions")
    .select(sql<number | string | null>`max(version)`.as("version"))
    .where("dataset_id", "=", datasetId)
    .executeTakeFirst();
  const version = Number(row?.version ?? 0);
  if (isPostgres(db) && version > 0)
    await db.deleteFrom("dataset_answer_versions").where("dataset_id", "=", datasetId).where("version", "<", version).execute();
  return version;
}

/**
 * The cache key of a scope's figures: the dataset, its answers version, the questions' settings,
 * the chosen question and annotators and the records the filters matched (a digest). Figures under
 * it stay right until one of these changes; final answers are not part of them (read on every call).
 */
export async function scopeKey(db: Kysely<DB>, scope: ReviewScope): Promise<string> {
  const version = await answersVersion(db, scope.dataset.id);
  const hash = createHash("sha1");
  hash.update(JSON.stringify(scope.schema.questions.map((q) => [q.id, q.name, q.settings])));
  hash.update(`|${scope.question?.name ?? ""}|${scope.userIds ? [...scope.userIds].sort().join(",") : "*"}|`);
  if (scope.recordIds) for (const id of [...scope.recordIds].sort()) hash.update(id);
  else hash.update("*");
  return `${scope.dataset.id}:${version}:${hash.digest("base64")}`;
}

/**
 * A small in-process cache of computed review figures (agreement, the records needing review),
 * least recently used first out, bounded by the records its entries hold (`weight`) so that a few
 * large datasets cannot hold much memory. Keys carry the dataset's answers version, so an entry is
 * never stale: after a response is written the next call misses and computes again. Each replica
 * has its own; the version comes from the shared database.
 */
export class FiguresCache {
  private readonly entries = new Map<string, { value: unknown; weight: number }>();
  private weight = 0;

  constructor(private readonly maxWeight = 400_000) {}

  get<T>(key: string): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    this.entries.set(key, entry);
    return entry.value as T;
  }

  set(key: string, value: unknown, weight: number): void {
    const previous = this.entries.get(key);
    if (previous) {
      this.weight -= previous.weight;
      this.entries.delete(key);
    }
    if (weight > this.maxWeight) return;
    this.entries.set(key, { value, weight });
    this.weight += weight;
    for (const [oldest, entry] of this.entries) {
      if (this.weight <= this.maxWeight) break;
      this.entries.delete(oldest);
      this.weight -= entry.weight;
    }
  }

  /** The cached value under `key`, or computes, keeps and returns it. */
  async through<T>(key: string, compute: () => Promise<T>, weigh: (value: T) => number): Promise<T> {
    const hit = this.get<T>(key);
    if (hit !== undefined) return hit;
    const value = await compute();
    this.set(key, value, weigh(value));
    return value;
  }
}

/** The process's cache of review figures (one per server process; keys name the dataset and its version). */
export const figuresCache = new FiguresCache();
