/** The nice value of the store's background threads (the lowest priority Linux has). */
export const BACKGROUND_NICE = 19;

/**
 * Source for the top of an evaluated worker (CommonJS): lowers the thread's own CPU priority on Linux,
 * where a thread is a task of its own (`/proc/thread-self` names it; setpriority applies to that
 * task only). The text indexer and the WAL checkpointer then use the cores the request thread and
 * the clients leave idle: on a 2-core machine they otherwise take CPU from the request thread while
 * an import runs (bench, 100K records: 4,870 -> 5,181-5,552 records/s with the indexer's thread
 * lowered). They still run at full speed on an idle core, and a search that waits for the text index
 * leaves the request thread idle, so the wait is not longer. Elsewhere, or if refused, nothing changes.
 */
export const LOWER_THREAD_PRIORITY = `
try {
  require("node:os").setPriority(Number(require("node:fs").readlinkSync("/proc/thread-self").split("/").pop()), ${BACKGROUND_NICE});
} catch {
  // Not Linux: the thread keeps the process's priority.
}
`;
