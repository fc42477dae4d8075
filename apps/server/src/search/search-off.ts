/**
 * The embedded store's own search structures that `TESSERA_SEARCH_OFF` can switch off (issue 25,
 * point 3: each stays only if removing it costs a measured figure; docs/performance.md, "The search's
 * own structures"). Off, the search answers the same pages and totals by the plain path:
 * - `similarity-index`: the inverted file over the similarity codes and least similar's far side
 *   (knn-ivf.ts): every code is scored instead (sqlite-knn.ts);
 * - `metadata-columns`: the in-memory metadata columns and their match lists (sqlite-metadata.ts):
 *   the `record_metadata` index in SQL instead (migration 0009);
 * - `text-cache`: the cached matches of text queries (sqlite-text.ts; budget 0: nothing kept);
 * - `ranked-ahead`: the frequent words' best rows ranked ahead on the read threads (sqlite-text.ts);
 * - `candidates`: searches that start from answered records, completed records or the sort keys kept in memory
 *   (sqlite-candidates.ts, sqlite-sort-keys.ts; with text sqlite-text-candidates.ts, sqlite-text-sorted.ts): the
 *   plain SQL path over the dataset's records or the text's matches instead.
 */
export const SEARCH_STRUCTURES = ["similarity-index", "metadata-columns", "text-cache", "ranked-ahead", "candidates"] as const;
export type SearchStructure = (typeof SEARCH_STRUCTURES)[number];

/** The options of the SQLite adapter (sqlite-search.ts) with these structures off. */
export interface SearchOffOptions {
  metadataColumns?: boolean;
  cacheBytes?: number;
  frequentRows?: number;
  knn?: { indexAbove?: number };
  candidates?: boolean;
  answered?: boolean;
  textSorts?: boolean;
}

export function searchOffOptions(off: readonly SearchStructure[]): SearchOffOptions {
  const has = (s: SearchStructure) => off.includes(s);
  const options: SearchOffOptions = {};
  if (has("metadata-columns")) options.metadataColumns = false;
  if (has("text-cache")) options.cacheBytes = 0;
  if (has("ranked-ahead")) options.frequentRows = 0;
  if (has("similarity-index")) options.knn = { indexAbove: Number.POSITIVE_INFINITY };
  if (has("candidates")) Object.assign(options, { candidates: false, answered: false, textSorts: false });
  return options;
}

/**
 * `TESSERA_SEARCH_OFF`: names of SEARCH_STRUCTURES separated by spaces or commas; unset or empty: none.
 * Returns the names, or the message refusing the value.
 */
export function parseSearchOff(value: string | undefined): SearchStructure[] | string {
  const names = (value ?? "").split(/[\s,]+/).filter((n) => n !== "");
  const unknown = names.filter((n) => !(SEARCH_STRUCTURES as readonly string[]).includes(n));
  if (unknown.length > 0)
    return `TESSERA_SEARCH_OFF=${value} is not valid: ${unknown.join(", ")} is not one of ${SEARCH_STRUCTURES.join(", ")} (separated by spaces or commas), or unset.`;
  return [...new Set(names)] as SearchStructure[];
}

const registered = new WeakMap<object, readonly SearchStructure[]>();

/** Notes the structures switched off for the store opened on `db` (db/database.ts, at start). */
export function registerSearchOff(db: object, off: readonly SearchStructure[]): void {
  registered.set(db, off);
}

/** The structures switched off for the store opened on `db`: none unless registered. */
export function searchOffOf(db: object): readonly SearchStructure[] {
  return registered.get(db) ?? [];
}
