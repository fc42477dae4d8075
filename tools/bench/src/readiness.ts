import type { Api, ServerMemory } from "./api.ts";

/** How long after the import's last batch (its answer) search was ready on it (embedded store; PostgreSQL: the text search only). */
export interface Readiness {
  /** The first text search after the last batch: its latency (the text indexer catches up with the last records first), and when it answered. */
  textSearchMs: number;
  textSeconds: number;
  /** The similarity index searched by most_similar (`memory.search.similarity_index` above 0); absent when not awaited or not reached. */
  similarityIndexSeconds?: number;
  /** least_similar's far side in that index too (`memory.search.similarity_far_side` above 0). */
  farSideSeconds?: number;
  /**
   * No background search work left (`search_pending` of the status: no record left to index, no similarity index
   * being built or due): an index found earlier may be one built during the import, its rows written since scanned
   * as its tail until this rebuild. Absent when the server does not say (an older one) or not reached.
   */
  settledSeconds?: number;
}

/** The parts of GET /api/v1/status the readiness reads. */
interface Status {
  memory?: ServerMemory;
  search_pending?: { text_records: number; similarity_indexes: number };
}

/** Whether the status says the search's background work is done (false when it does not say). */
export function searchSettled(status: Status | null): boolean {
  const pending = status?.search_pending;
  return pending !== undefined && pending.text_records === 0 && pending.similarity_indexes === 0;
}

/**
 * Measures `Readiness` from `since` (performance.now() at the last batch's answer): one text search for
 * `word`, then, when `similarity`, the server's status every 250 ms until its similarity index and its
 * far side are in, and its background search work is done (`settledSeconds`; at most `maxSeconds`).
 */
export async function measureReadiness(
  api: Api,
  datasetId: string,
  word: string,
  since: number,
  similarity: boolean,
  maxSeconds = 600,
): Promise<Readiness> {
  const seconds = () => Math.round((performance.now() - since) / 100) / 10;
  const asked = performance.now();
  const res = await api.raw("POST", `/me/datasets/${datasetId}/records/search?limit=10`, { query: { text: { q: word } } });
  if (!res.ok) throw new Error(`text search after the import: ${res.status} ${(await res.text()).slice(0, 300)}`);
  await res.arrayBuffer();
  const readiness: Readiness = { textSearchMs: Math.round(performance.now() - asked), textSeconds: seconds() };
  if (!similarity) return readiness;
  let said = true;
  while (
    (readiness.farSideSeconds === undefined || (said && readiness.settledSeconds === undefined)) &&
    performance.now() - since < maxSeconds * 1000
  ) {
    const status = await api.json<Status>("GET", "/status").catch(() => null);
    const search = status?.memory?.search;
    said = status?.search_pending !== undefined;
    if ((search?.similarity_index ?? 0) > 0) readiness.similarityIndexSeconds ??= seconds();
    if ((search?.similarity_far_side ?? 0) > 0) readiness.farSideSeconds ??= seconds();
    if (readiness.farSideSeconds !== undefined && searchSettled(status)) readiness.settledSeconds = seconds();
    else await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return readiness;
}

/** The server is told to build no similarity index (`TESSERA_SEARCH_OFF` holds `similarity-index`, docs/deployment.md): nothing to wait for. */
export function similarityIndexOff(env: NodeJS.ProcessEnv): boolean {
  return (env.TESSERA_SEARCH_OFF ?? "").split(/[\s,]+/).includes("similarity-index");
}
