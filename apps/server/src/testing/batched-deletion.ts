import type { Batches } from "../db/delete-in-batches.js";

/**
 * Runs `deletion` in batches of `size` rows and counts the rows it deletes between two batches, as another request
 * would (on the embedded store it needs the writer's connection, which a deletion in one transaction would hold), and
 * returns the counts seen: a deletion in batches shows some of the rows between two, one transaction none of them.
 * Counted at each pause, not by a watcher polling beside it: on PostgreSQL 11 batches take ~20 ms, which a poll
 * delayed by a loaded machine missed (CI).
 */
export async function countsSeenDuring(
  count: () => Promise<number>,
  deletion: (batches: Batches) => Promise<void>,
  size: number,
): Promise<Set<number>> {
  const seen = new Set<number>();
  await deletion({ size, between: async () => void seen.add(await count()) });
  return seen;
}
