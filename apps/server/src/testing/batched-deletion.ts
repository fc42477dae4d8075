/**
 * Runs `deletion` while another request counts the rows it deletes again and again, and returns the counts seen: a
 * deletion in batches shows some of the rows between two batches, one transaction all of them and then none.
 */
export async function countsSeenDuring(count: () => Promise<number>, deletion: () => Promise<void>): Promise<Set<number>> {
  let running = true;
  const seen = new Set<number>();
  const watcher = (async () => {
    while (running) {
      seen.add(await count());
      // As separate requests do: a loop of queries without a pause would take the embedded store's connection back
      // each time it is released (Kysely's mutex is not fair) and starve the deletion.
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
  })();
  try {
    await deletion();
  } finally {
    running = false;
    await watcher;
  }
  return seen;
}
