import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";

/**
 * How often the background thread checkpoints. A page written by many commits in between is copied
 * once: at 1 s the process spent less CPU in all than with 200 ms or with the connection's own
 * checkpoints (bench, 100K records: 22.2 / 24.2 / 23.7 s, of which the request thread 19.2 / 20.0 / 21.1 s).
 */
const INTERVAL_MS = 1000;
/**
 * The write connection's own automatic checkpoint stays on as a safety net (the thread failed, or
 * never found the WAL fully copied between two writes, which it must be for the WAL to restart):
 * 20,000 pages (80 MB) instead of the default 1,000.
 */
export const FALLBACK_AUTOCHECKPOINT = 20_000;

/**
 * The thread's code (CommonJS, evaluated: the server is bundled into one file, so a worker cannot
 * have a module of its own). Its own connection runs PASSIVE checkpoints, which never block the
 * writer nor readers and copy only frames no reader still needs; the writer restarts the WAL from
 * its beginning at its next write once everything was copied.
 */
const source = `
const { parentPort, workerData } = require("node:worker_threads");
const SQLite = require(workerData.module);
const db = new SQLite(workerData.file, { fileMustExist: true });
db.pragma("busy_timeout = 0");
// A checkpoint copies WAL frames into the file: it reads no page twice, a page cache buys nothing.
db.pragma("cache_size = -256");
const tick = () => {
  try {
    const [row] = db.pragma("wal_checkpoint(PASSIVE)");
    if (row && row.checkpointed > 0) parentPort.postMessage({ checkpointed: row.checkpointed });
  } catch (error) {
    parentPort.postMessage({ error: String(error) });
  }
};
const timer = setInterval(tick, workerData.intervalMs);
parentPort.on("message", (m) => {
  if (m === "close") { clearInterval(timer); db.close(); parentPort.close(); }
});
`;

/**
 * Checkpoints of the embedded store's WAL on a thread of their own, with a second connection:
 * otherwise the write connection checkpoints itself (every 1,000 pages by default), inside the commit
 * of the request that crosses the limit: copying the WAL into the database file and its fsync.
 * Durability is unchanged: a commit is in the WAL when the request is answered (synchronous =
 * NORMAL: it survives a crash of the process; the WAL is fsynced at checkpoints).
 */
export class Checkpointer {
  private readonly worker: Worker;
  private closed: Promise<void> | null = null;
  /** Frames copied so far (reported by the thread; for tests and diagnostics). */
  checkpointed = 0;

  constructor(file: string, onError: (message: string) => void = () => {}) {
    const module = createRequire(import.meta.url).resolve("better-sqlite3");
    this.worker = new Worker(source, { eval: true, workerData: { file, module, intervalMs: INTERVAL_MS } });
    this.worker.unref();
    this.worker.on("message", (m: { checkpointed?: number; error?: string }) => {
      if (m.error) onError(m.error);
      else if (m.checkpointed) this.checkpointed += m.checkpointed;
    });
    this.worker.on("error", (error) => onError(String(error)));
  }

  /** Stops the thread and closes its connection (before the write connection closes, which checkpoints the rest). */
  close(): Promise<void> {
    this.closed ??= new Promise<void>((resolve) => {
      this.worker.once("exit", () => resolve());
      this.worker.postMessage("close");
    });
    return this.closed;
  }
}
