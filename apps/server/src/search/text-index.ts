import { sql, type Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { isPostgres } from "../db/dialect.js";

/** Records per indexing transaction: one FTS5 segment flush per chunk, short enough to let requests interleave. */
const CHUNK = 2000;
/** The background indexer waits for this long without record writes before it runs. */
const IDLE_MS = 250;
/** Records behind the index beyond which the background indexer runs between writes anyway (bounds a search's catch-up). */
const MAX_LAG = 20_000;

/**
 * Deferred full-text indexing of new records (SQLite; migration 0014): the record ingestion commits
 * the records and answers without writing their `records_fts` rows; this indexer writes them for every
 * record with `seq` above `search_index_state.seq` ('records_fts'), in chunks of consecutive records,
 * each chunk and the new mark in one transaction (so a crash loses neither, and a restart resumes).
 *
 * Why: tokenising the text and writing FTS5 segments was about a third of the CPU of a bulk request
 * (each 256-record batch flushed its own small segment, merged again later); chunks of 2,000 records
 * write fewer, larger segments, and run when no records are being written (or when the backlog grows
 * past MAX_LAG), not on the request path.
 *
 * Exactness: every reader of `records_fts` calls `catchUp()` first, which indexes every record stored
 * before the call, so a search sees every acknowledged record. Deletes remove FTS rows by trigger (none
 * for records not indexed yet) and lower the mark when the largest seq goes (SQLite reuses it); the
 * fields update trigger only acts on indexed records (0014), so no row is written twice.
 * PostgreSQL keeps its tsvector triggers (no indexer).
 */
export class TextIndex {
  private timer: NodeJS.Timeout | null = null;
  private lastWrite = 0;
  /** Records written since the indexer last ran, minus what it indexed since (an estimate: it starts at 0 after a restart). */
  private backlog = 0;
  private closed = false;
  /** The chunk in progress, if any (one at a time; the mark read inside the transaction keeps concurrent callers exact anyway). */
  private running: Promise<boolean> | null = null;
  /** Datasets written since the idle work last ran, and that work (search/warm-up.ts). */
  private readonly touched = new Set<string>();
  private idleWork: ((datasets: string[]) => Promise<void>) | null = null;

  constructor(private readonly db: Kysely<DB>, private readonly onError: (error: unknown) => void = () => {}) {}

  /** Indexes every record stored before the call (chunk by chunk: other requests run in between). */
  async catchUp(): Promise<void> {
    const { done, last } = await this.state();
    if (done >= last) return;
    // Up to the records stored now: writes arriving meanwhile are not waited for.
    while ((await this.step()) && (await this.state()).done < last);
  }

  /** Called after records were written: (re)arms the idle timer; a large backlog is indexed at once. */
  noteWrite(records: number, datasetId?: string): void {
    if (this.closed) return;
    if (datasetId !== undefined) this.touched.add(datasetId);
    this.lastWrite = Date.now();
    this.backlog += records;
    // One chunk per write while the backlog is above the bound: chunks are larger than batches, so it shrinks.
    // After the current request's response (setImmediate runs after the pending microtasks).
    if (this.backlog >= MAX_LAG) setImmediate(() => { if (!this.closed) this.step().catch(this.onError); });
    this.arm(IDLE_MS);
  }

  /**
   * Work for the written datasets once the index has caught up and no records were written for a
   * while (e.g. loading what their first searches would otherwise load).
   */
  onIdle(work: (datasets: string[]) => Promise<void>): void { this.idleWork = work; }

  /** Starts the background indexing (e.g. at server start: records stored before a restart). */
  start(): void { this.arm(IDLE_MS); }

  /** Stops the background indexing (the store is closing). */
  stop(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private arm(delay: number): void {
    if (this.closed || this.timer) return;
    this.timer = setTimeout(() => { this.timer = null; void this.background(); }, delay);
    this.timer.unref();
  }

  private async background(): Promise<void> {
    const quiet = Date.now() - this.lastWrite;
    if (quiet < IDLE_MS) { this.arm(IDLE_MS - quiet); return; }
    try {
      const more = await this.step();
      if (more) this.arm(0);
      else if (this.touched.size > 0 && this.idleWork) {
        const datasets = [...this.touched];
        this.touched.clear();
        await this.idleWork(datasets);
      }
    } catch (error) {
      if (!this.closed) this.onError(error);
    }
  }

  /** One chunk; true when records are left to index. */
  private step(): Promise<boolean> {
    // Chained, so that concurrent callers (background, searches) wait for each other instead of racing for the connection.
    const previous = this.running ?? Promise.resolve(true);
    const next = previous.catch(() => true).then(() => this.indexChunk());
    this.running = next;
    void next.finally(() => { if (this.running === next) this.running = null; }).catch(() => {});
    return next;
  }

  private async indexChunk(): Promise<boolean> {
    const run = async (trx: Kysely<DB>): Promise<boolean> => {
      const state = await stateOf(trx);
      if (state.done >= state.last) return false;
      const end = (await sql<{ seq: number }>`SELECT seq FROM records WHERE seq > ${state.done} ORDER BY seq LIMIT 1 OFFSET ${CHUNK - 1}`.execute(trx)).rows[0]?.seq ?? state.last;
      // rowid = seq * 1024 + position of the text field (migration 0003), inserted in ascending rowid
      // order: FTS5 flushes its pending terms whenever a rowid is not above the previous one.
      await sql`INSERT INTO records_fts (rowid, content, field)
        SELECT seq * 1024 + position - 1, content, field FROM (
          SELECT r.seq AS seq, j.value AS content, j.key AS field, row_number() OVER (PARTITION BY r.seq ORDER BY j.id) AS position
          FROM records r, json_each(r.fields) AS j WHERE r.seq > ${state.done} AND r.seq <= ${end} AND j.type = 'text'
        ) WHERE position <= 1024 ORDER BY seq, position`.execute(trx);
      await sql`INSERT INTO search_index_state (name, seq) VALUES ('records_fts', ${end}) ON CONFLICT (name) DO UPDATE SET seq = excluded.seq`.execute(trx);
      return end < state.last;
    };
    const more = await (this.db.isTransaction ? run(this.db) : this.db.transaction().execute(run));
    this.backlog = more ? Math.max(0, this.backlog - CHUNK) : 0;
    return more;
  }

  private state(): Promise<{ done: number; last: number }> { return stateOf(this.db); }
}

/** The indexed mark and the largest record seq. */
async function stateOf(db: Kysely<DB>): Promise<{ done: number; last: number }> {
  return (await sql<{ done: number; last: number }>`SELECT coalesce((SELECT seq FROM search_index_state WHERE name = 'records_fts'), 0) AS done,
    coalesce((SELECT max(seq) FROM records), 0) AS last`.execute(db)).rows[0]!;
}

const indexes = new WeakMap<object, TextIndex>();

/** The deferred text index of a SQLite store (one per Kysely instance); null on PostgreSQL (triggers keep its tsvectors). */
export function textIndexFor(db: Kysely<DB>): TextIndex | null {
  if (isPostgres(db)) return null;
  let index = indexes.get(db);
  if (!index) {
    index = new TextIndex(db, (error) => { console.error("text index: background indexing failed", error); });
    indexes.set(db, index);
  }
  return index;
}
