import type { Annotator } from "./api.ts";

/** Items per `POST /me/responses/bulk` (the endpoint's maximum). */
const BULK = 100;

/**
 * The records client `c` of `clients` answers when each answers `n`: indexes c, c + clients, c + 2 x clients, ...
 * (modulo `total`): a team sharing one queue, each annotator's records spread over the part of the dataset the team
 * went through (one client: the first n records). Pure, for the tests.
 */
export function answeredIndexes(c: number, clients: number, n: number, total: number): number[] {
  if (total <= 0) return [];
  const out: number[] = [];
  const seen = new Set<number>();
  for (let k = 0; out.length < Math.min(n, total); k++) {
    const i = (c + k * clients) % total;
    if (seen.has(i)) {
      // Wrapped onto indexes taken already (clients x n > total): the next free one.
      let j = (i + 1) % total;
      while (seen.has(j)) j = (j + 1) % total;
      seen.add(j);
      out.push(j);
      continue;
    }
    seen.add(i);
    out.push(i);
  }
  return out;
}

/**
 * Gives each client `n` submitted responses through the API (`POST /me/responses/bulk`, 100 a request) on the records
 * of answeredIndexes for a team of `team` annotators (`--answered-spread`, default the clients: 1 gives every client the
 * records from its index on, one after another), before the latency runs (`--answered`): the Submitted view's rows then
 * measure an annotator who has answered that many records. Returns the responses written and the seconds taken; throws
 * on a failed item.
 */
export async function giveAnswers(
  clients: readonly Annotator[],
  recordIds: readonly string[],
  n: number,
  team: number,
  onProgress: (done: number) => void,
): Promise<{ responses: number; seconds: number }> {
  const started = performance.now();
  let done = 0;
  for (const [c, client] of clients.entries()) {
    const indexes = answeredIndexes(c, team, n, recordIds.length);
    for (let i = 0; i < indexes.length; i += BULK) {
      const items = indexes.slice(i, i + BULK).map((k) => ({
        record_id: recordIds[k]!,
        status: "submitted",
        values: { sentiment: { value: ["positive", "negative", "neutral"][k % 3] }, topics: { value: ["science"] } },
      }));
      const answer = await client.api.json<{ items: Array<{ error: unknown }> }>("POST", "/me/responses/bulk", { items });
      const failed = answer.items.filter((x) => x.error);
      if (failed.length) throw new Error(`--answered: ${failed.length} items failed: ${JSON.stringify(failed[0])}`);
      done += items.length;
      onProgress(done);
    }
  }
  return { responses: done, seconds: Math.round((performance.now() - started) / 100) / 10 };
}
