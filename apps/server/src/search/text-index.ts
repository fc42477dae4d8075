import { rmSync } from "node:fs";
import { createRequire } from "node:module";
import { Worker } from "node:worker_threads";
import type SQLite from "better-sqlite3";
import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { FTS_ROWID_RANGE } from "./sqlite-sql.js";

/**
 * Records per indexing transaction: one FTS5 segment flush per chunk, with the table's `hashsize`
 * (the pending terms FTS5 keeps in memory before it writes a segment, 1 MB by default) large enough
 * for a whole chunk. Measured on the bench's texts (~340 words per record, 300K records): indexing
 * CPU 77 us per record at 2,000 records and 1 MB, 50-57 us at 10,000 records and 32 MB (fewer,
 * larger segments: less merging).
 */
const CHUNK = 10_000;
/** FTS5 `hashsize` of the index (bytes of pending terms per segment flush); see CHUNK. */
export const FTS_HASH_SIZE = 32 * 1024 * 1024;
/** Logged changes (deletes, fields updates) applied per indexing transaction. */
const LOG_CHUNK = 5000;
/** Fewer records than a chunk behind: the indexer waits for this long without record writes before it runs. */
const IDLE_MS = 250;
/** Applied log entries the request thread lets pile up before it prunes them. */
const PRUNE_EVERY = 1000;
/**
 * Records the indexer may be behind the writes before a writer waits for its next step (`keepUp`): two
 * chunks, one being indexed and one filling. Without it the indexer fell up to 61-126K records behind a 1M import
 * on 2 shared cores (measured; it gets the same share of a core as the request thread, and needs as much per
 * record), and the first text search after the last batch waited 3.5-34 s for it to catch up (0.2-1.9 s with it).
 */
export const MAX_BEHIND = 2 * CHUNK;
/**
 * More than this many times `maxBehind` behind, the backlog is not the writes' doing (a rebuild of the index, the
 * catch-up after a restart: minutes at 1M records), and holding each batch for a step would only slow the writers.
 */
const REBUILDING = 10;

/**
 * Prefix lengths (characters) FTS5 keeps an index of (`prefix` option, issue 31): a query `word*` whose
 * prefix has one of these lengths reads one doclist instead of merging the doclists of every term
 * starting with it in every statement (at 1M records, `qua*` of ~300 terms: ~1.3 s of CPU, twice, with
 * its bm25; with the index ~40 ms). FTS5 uses the index of the prefix's exact length only; a longer
 * prefix matches fewer terms. Each length costs ~+35% indexing CPU and ~+65% of the index file
 * (docs/archive/performance-history.md, session 12); `TESSERA_TEXT_PREFIX_INDEX` (config.ts) chooses them.
 */
export const FTS_PREFIXES = "3 4";

/** The full-text table (migration 0010's definition, with the prefix index of `prefixes`), in the attached file. */
const ftsTable = (prefixes: string) =>
  `CREATE VIRTUAL TABLE IF NOT EXISTS fts.records_fts USING fts5(content, field UNINDEXED, content = '', contentless_delete = 1, contentless_unindexed = 1,
  tokenize = 'unicode61 remove_diacritics 2'${prefixes ? `, prefix = '${prefixes}'` : ""})`;

/** The prefix lengths of a table definition (sqlite_master's `sql`), normalized ("" for none). */
const prefixesOf = (definition: string): string => normalizePrefixes(/\bprefix\s*=\s*'([^']*)'/.exec(definition)?.[1] ?? "");

/** Prefix lengths as FTS5 takes them: distinct whole numbers 1-999 in increasing order, space-separated ("" for none, or for nothing valid). */
export function normalizePrefixes(value: string): string {
  const lengths = value
    .split(/[\s,]+/)
    .filter((w) => /^\d+$/.test(w))
    .map(Number)
    .filter((n) => n >= 1 && n <= 999);
  return [...new Set(lengths)].sort((a, b) => a - b).join(" ");
}

/**
 * The indexer thread's code (CommonJS, evaluated: the server is bundled into one file, so a worker
 * cannot have a module of its own, as for db/checkpointer.ts). Its connection opens the index file as
 * `main` and the store as `src` (read only: deferred transactions that write only the index file, so
 * the store's write lock is never taken). One step = one transaction: first a chunk of the change log
 * (delete the rows of each logged seq, re-index the seqs below the mark from their current record),
 * then the mark clamped to the largest seq (SQLite reuses the seqs above it), then a chunk of new
 * records above the mark. Messages: `catchUp` (answer `done` once every record and change committed
 * before it is indexed), `write` (records were written: index when a chunk is due or the writes
 * pause), `start`, `close`. It answers `step` after each step (how many records it is still behind, and
 * the records of the `write` messages it had received when the step began) and `idle` when it has caught
 * up with no catch-up waiting.
 */
const source = `
const { parentPort, workerData } = require("node:worker_threads");
const SQLite = require(workerData.module);
const { chunk, logChunk, idleMs } = workerData;
const db = new SQLite(workerData.ftsFile, { fileMustExist: true });
db.pragma("journal_mode = WAL");
db.pragma("synchronous = NORMAL");
db.pragma("busy_timeout = 5000");
db.prepare("ATTACH DATABASE ? AS src").run(workerData.mainFile);
const rowsOf = (where) => "INSERT INTO records_fts (rowid, content, field) SELECT seq * 1024 + position - 1, content, field FROM ("
  + "SELECT r.seq AS seq, j.value AS content, j.key AS field, row_number() OVER (PARTITION BY r.seq ORDER BY j.id) AS position "
  + "FROM src.records r, json_each(r.fields) AS j WHERE " + where + " AND j.type = 'text') WHERE position <= 1024 ORDER BY seq, position";
const st = {
  state: db.prepare("SELECT (SELECT value FROM text_index_state WHERE name = 'indexed') AS indexed, (SELECT value FROM text_index_state WHERE name = 'applied') AS applied"),
  set: db.prepare("INSERT INTO text_index_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value"),
  last: db.prepare("SELECT coalesce(max(seq), 0) FROM src.records").pluck(),
  lastLog: db.prepare("SELECT coalesce(max(id), 0) FROM src.records_fts_changes").pluck(),
  logged: db.prepare("SELECT id, seq FROM src.records_fts_changes WHERE id > ? ORDER BY id LIMIT ?"),
  end: db.prepare("SELECT seq FROM src.records WHERE seq > ? ORDER BY seq LIMIT 1 OFFSET ?").pluck(),
  insertRange: db.prepare(rowsOf("r.seq > ? AND r.seq <= ?")),
  insertSeqs: db.prepare(rowsOf("r.seq IN (SELECT value FROM json_each(?))")),
  deleteSeq: db.prepare("DELETE FROM records_fts WHERE ${FTS_ROWID_RANGE}"),
};
const step = db.transaction(() => {
  let { indexed, applied } = st.state.get();
  const last = st.last.get();
  const logs = st.logged.all(applied, logChunk);
  if (logs.length > 0) {
    const seqs = [...new Set(logs.map((l) => l.seq))].sort((a, b) => a - b);
    for (const s of seqs) st.deleteSeq.run(s * 1024, s * 1024 + 1023);
    const again = seqs.filter((s) => s <= indexed);
    if (again.length > 0) st.insertSeqs.run(JSON.stringify(again));
    applied = logs[logs.length - 1].id;
    st.set.run("applied", applied);
  }
  if (indexed > last) { indexed = last; st.set.run("indexed", last); }
  if (logs.length < logChunk && indexed < last) {
    const end = st.end.get(indexed, chunk - 1) ?? last;
    st.insertRange.run(indexed, end);
    indexed = end;
    st.set.run("indexed", end);
  }
  return { indexed, applied, behind: Math.max(0, last - indexed), more: logs.length === logChunk || indexed < last };
});
const waiters = [];
let timer = null, due = Infinity, backlog = 0, lastWrite = 0, closed = false, seen = 0;
const schedule = (delay) => {
  const at = Date.now() + delay;
  if (closed || at >= due) return;
  if (timer) clearTimeout(timer);
  due = at;
  timer = setTimeout(run, delay);
};
function run() {
  timer = null; due = Infinity;
  const seenBefore = seen;
  let r;
  try {
    r = step();
  } catch (error) {
    for (const w of waiters.splice(0)) parentPort.postMessage({ type: "done", id: w.id, error: String(error) });
    parentPort.postMessage({ type: "error", error: String(error) });
    return;
  }
  backlog = Math.max(0, backlog - chunk);
  parentPort.postMessage({ type: "step", behind: r.behind, seen: seenBefore });
  for (let i = waiters.length - 1; i >= 0; i--) {
    const w = waiters[i];
    if (!r.more || (r.indexed >= w.last && r.applied >= w.log)) { waiters.splice(i, 1); parentPort.postMessage({ type: "done", id: w.id, applied: r.applied }); }
  }
  if (!r.more) { parentPort.postMessage({ type: "idle", applied: r.applied }); return; }
  const quiet = Date.now() - lastWrite;
  schedule(waiters.length > 0 || backlog >= chunk || quiet >= idleMs ? 0 : idleMs - quiet);
}
parentPort.on("message", (m) => {
  if (m.type === "catchUp") {
    waiters.push({ id: m.id, last: st.last.get(), log: st.lastLog.get() });
    schedule(0);
  } else if (m.type === "write") {
    backlog += m.records;
    seen += m.records;
    lastWrite = Date.now();
    schedule(backlog >= chunk ? 0 : idleMs);
  } else if (m.type === "start") {
    schedule(0);
  } else if (m.type === "close") {
    closed = true;
    if (timer) clearTimeout(timer);
    for (const w of waiters.splice(0)) parentPort.postMessage({ type: "done", id: w.id, error: "the text index is closing" });
    db.close();
    parentPort.close();
  }
});
`;

/**
 * Attaches the full-text index file to the store's connection as `fts` (creating its table and
 * state when new), so that search queries find `records_fts` and `records_fts_data` there.
 * The file is derived data: new (or after a restored backup of the store, whose change log is
 * behind what the index applied) it starts empty at mark 0 and the indexer builds it from `records`;
 * unreadable (e.g. damaged), it is replaced by a new one. `prefixes`: the prefix index's lengths
 * (TESSERA_TEXT_PREFIX_INDEX; "" none); undefined: FTS_PREFIXES for a new file, an existing one as it is.
 */
export function attachTextIndex(sqlite: SQLite.Database, ftsFile: string, prefixes?: string): void {
  const wanted = normalizePrefixes(prefixes ?? FTS_PREFIXES);
  const replace = (why: string) => {
    console.error(`text index: ${ftsFile} ${why}; rebuilding it`);
    try {
      sqlite.prepare("DETACH DATABASE fts").run();
    } catch {
      /* not attached */
    }
    for (const suffix of ["", "-wal", "-shm"]) rmSync(`${ftsFile}${suffix}`, { force: true });
    attachIndexFile(sqlite, ftsFile, wanted);
  };
  let built: string;
  try {
    built = attachIndexFile(sqlite, ftsFile, wanted);
  } catch (error) {
    replace(`is unusable (${error instanceof Error ? error.message : String(error)})`);
    return;
  }
  // Another prefix index than TESSERA_TEXT_PREFIX_INDEX names: FTS5 cannot add or drop one in place. The file holds
  // derived data only: a new one is built from the records (text searches wait for it: catchUp; ~4 min at 1M).
  // Unset, a file keeps the prefix index it was built with (an older version's file: none), so that an
  // upgrade does not stop text search for a rebuild; only a new file gets FTS_PREFIXES.
  if (prefixes !== undefined && built !== wanted) replace(`has the prefix index '${built}', not '${wanted}'`);
}

/** Attaches the file (creating what is missing); returns the prefix lengths of the table as it was found (created: the wanted ones). */
function attachIndexFile(sqlite: SQLite.Database, ftsFile: string, prefixes: string): string {
  sqlite.prepare("ATTACH DATABASE ? AS fts").run(ftsFile);
  sqlite.pragma("fts.journal_mode = WAL");
  sqlite.pragma("fts.synchronous = NORMAL");
  const existing = sqlite.prepare("SELECT sql FROM fts.sqlite_master WHERE type = 'table' AND name = 'records_fts'").pluck().get() as
    string | undefined;
  sqlite.exec(ftsTable(prefixes));
  // A persistent FTS5 option (records_fts_config), read by every connection that opens the table.
  if (sqlite.prepare("SELECT v FROM fts.records_fts_config WHERE k = 'hashsize'").pluck().get() !== FTS_HASH_SIZE) {
    sqlite.exec(`INSERT INTO fts.records_fts (records_fts, rank) VALUES ('hashsize', ${FTS_HASH_SIZE})`);
  }
  sqlite.exec("CREATE TABLE IF NOT EXISTS fts.text_index_state (name TEXT PRIMARY KEY, value INTEGER NOT NULL)");
  // The frequent words ranked ahead (search/sqlite-text.ts, rankFrequentWords), kept for a restart: valid
  // only at the index version stored with them (the blocks of records_fts_data that version the text cache), `k` rows per word.
  sqlite.exec("CREATE TABLE IF NOT EXISTS fts.text_ranked_ahead (key TEXT PRIMARY KEY, fr BLOB NOT NULL, bm BLOB NOT NULL)");
  sqlite.exec(
    "CREATE TABLE IF NOT EXISTS fts.text_ranked_ahead_version (id INTEGER PRIMARY KEY CHECK (id = 1), version BLOB NOT NULL, k INTEGER NOT NULL)",
  );
  // The frequent words' row counts (search/phrase-rows.ts), stored with them: valid at text_ranked_ahead_version's version.
  sqlite.exec("CREATE TABLE IF NOT EXISTS fts.text_phrase_rows (phrase TEXT PRIMARY KEY, rows INTEGER NOT NULL)");
  // The log's high-water mark (AUTOINCREMENT: pruning never lowers it).
  const logTop =
    (sqlite.prepare("SELECT seq FROM main.sqlite_sequence WHERE name = 'records_fts_changes'").pluck().get() as number | undefined) ?? 0;
  const applied = sqlite.prepare("SELECT value FROM fts.text_index_state WHERE name = 'applied'").pluck().get() as number | undefined;
  if (applied === undefined || applied > logTop) {
    sqlite.transaction(() => {
      sqlite.exec("INSERT INTO fts.records_fts (records_fts) VALUES ('delete-all')");
      const set = sqlite.prepare(
        "INSERT INTO fts.text_index_state (name, value) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET value = excluded.value",
      );
      set.run("indexed", 0);
      set.run("applied", logTop);
    })();
  }
  return existing === undefined ? prefixes : prefixesOf(existing);
}

interface Reply {
  type: "done" | "idle" | "error" | "step";
  id?: number;
  applied?: number;
  behind?: number;
  seen?: number;
  error?: string;
}

/**
 * Deferred full-text indexing on a thread of its own (SQLite; migrations 0014 and 0016): the record
 * ingestion commits the records and answers without writing their `records_fts` rows; the indexer
 * thread writes them into the index file, for every record with `seq` above its mark, in chunks of
 * 10,000 consecutive records (fewer, larger FTS5 segments), as soon as a chunk is due or when the
 * writes pause. The request thread only sends messages.
 *
 * Exactness: every reader of `records_fts` calls `catchUp()` first, which waits until every record
 * and change stored before the call is indexed, so a search sees every acknowledged record and no
 * deleted one. PostgreSQL keeps its tsvector triggers (no indexer).
 */
export class TextIndex {
  private worker: Worker | null = null;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: () => void; reject: (e: Error) => void }>();
  private lastWrite = 0;
  private workerIdle = false;
  private idleTimer: NodeJS.Timeout | null = null;
  private closed = false;
  private pruned = 0;
  /** Datasets written since the idle work last ran, and that work (search/warm-up.ts). */
  private readonly touched = new Set<string>();
  private idleWork: ((datasets: string[]) => Promise<void>) | null = null;
  /** Records written (noteWrite), how far behind them the indexer was at its last step, and the writes it had heard of then. */
  private written = 0;
  private behindAtStep = 0;
  private writtenAtStep = 0;
  /** Writers waiting for a step that began after their write (keepUp), with the records written up to theirs. */
  private keepers: { written: number; resolve: () => void }[] = [];
  /** Writers that waited (tests, diagnostics). */
  keptUp = 0;

  /** `maxBehind`: records the indexer may be behind the writes before a writer waits for it (keepUp; default MAX_BEHIND). */
  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly files: { mainFile: string; ftsFile: string },
    private readonly onError: (error: unknown) => void = () => {},
    private readonly maxBehind = MAX_BEHIND,
  ) {}

  /** Waits until every record stored before the call is indexed (and every delete or fields update applied). */
  catchUp(): Promise<void> {
    if (this.closed) return Promise.resolve();
    const id = this.nextId++;
    const done = new Promise<void>((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
    });
    this.post({ type: "catchUp", id });
    return done;
  }

  /** Called after records were written: the indexer runs when a chunk is due or when the writes pause. */
  noteWrite(records: number, datasetId?: string): void {
    if (this.closed) return;
    if (datasetId !== undefined) this.touched.add(datasetId);
    this.written += records;
    this.lastWrite = Date.now();
    this.workerIdle = false;
    this.post({ type: "write", records });
  }

  /**
   * A writer's backpressure (records/ingest.ts, after its commit): when the indexer is more than `maxBehind`
   * records behind the writes (as of its last step, plus the records written since), a promise resolved at its
   * next step (or when it stops), else undefined. One step at most; and none while the indexer is far more behind
   * than writes alone could put it (REBUILDING: a rebuild of the index, a catch-up after a restart).
   * The import then ends with the indexer at most ~two chunks behind, which the first text search waits for.
   */
  keepUp(): Promise<void> | undefined {
    const behind = this.behind();
    if (this.closed || behind <= this.maxBehind || behind > REBUILDING * this.maxBehind) return undefined;
    this.keptUp++;
    const written = this.written;
    return new Promise<void>((resolve) => this.keepers.push({ written, resolve }));
  }

  /** Whether a writer waits for the indexer now (keepUp): records are being imported faster than they are indexed. */
  get holdingWriters(): boolean {
    return this.keepers.length > 0;
  }

  /** Records the indexer is behind the writes, as `behind` estimates it (GET /api/v1/status; 0 once stopped). */
  get recordsBehind(): number {
    return this.closed ? 0 : this.behind();
  }

  /** Records the indexer is behind the writes: as of its last step, plus those written since it began (an overestimate). */
  private behind(): number {
    return this.behindAtStep + this.written - this.writtenAtStep;
  }

  /**
   * The indexer's position after a step that began once it had heard of `seen` records written (the writers waiting
   * for a step after their write go on, and all of them once it is within the bound); stopped or idle: none behind.
   */
  private stepped(behind: number, seen = this.written): void {
    this.behindAtStep = behind;
    this.writtenAtStep = seen;
    const within = this.behind() <= this.maxBehind;
    const going = this.keepers.filter((k) => within || k.written <= seen);
    this.keepers = this.keepers.filter((k) => !going.includes(k));
    for (const k of going) k.resolve();
  }

  /**
   * Work for the written datasets once the index has caught up and no records were written for a
   * while (e.g. loading what their first searches would otherwise load).
   */
  onIdle(work: (datasets: string[]) => Promise<void>): void {
    this.idleWork = work;
  }

  /** Starts the background indexing (e.g. at server start: records stored before a restart). */
  start(): void {
    this.post({ type: "start" });
  }

  /** Datasets for the idle work once the index has caught up, as if they had just been written (e.g. after a restart). */
  touch(datasetIds: string[]): void {
    for (const id of datasetIds) this.touched.add(id);
  }

  /** Stops the indexer thread (the store is closing); pending catch-ups are answered with an error. */
  async stop(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.idleTimer) clearTimeout(this.idleTimer);
    const worker = this.worker;
    this.worker = null;
    if (!worker) return;
    await new Promise<void>((resolve) => {
      worker.once("exit", () => resolve());
      worker.postMessage({ type: "close" });
    });
    for (const w of this.waiting.values()) w.reject(new Error("the text index is closed"));
    this.waiting.clear();
    this.stepped(0);
  }

  private post(message: { type: string; id?: number; records?: number }): void {
    if (this.closed) return;
    this.worker ??= this.spawn();
    this.worker.postMessage(message);
  }

  private spawn(): Worker {
    const module = createRequire(import.meta.url).resolve("better-sqlite3");
    const worker = new Worker(source, {
      eval: true,
      workerData: { ...this.files, module, chunk: CHUNK, logChunk: LOG_CHUNK, idleMs: IDLE_MS },
    });
    worker.unref();
    worker.on("message", (m: Reply) => this.onMessage(m));
    worker.on("error", (error) => {
      // The thread died: answer the waiting searches with the error; the next call starts a new thread.
      this.onError(error);
      if (this.worker === worker) this.worker = null;
      for (const w of this.waiting.values()) w.reject(error);
      this.waiting.clear();
      this.stepped(0);
    });
    return worker;
  }

  private onMessage(m: Reply): void {
    if (m.type === "error") {
      this.onError(new Error(`text index: ${m.error}`));
      this.stepped(0);
      return;
    }
    if (m.type === "step") {
      this.stepped(m.behind ?? 0, m.seen);
      return;
    }
    if (m.applied !== undefined) this.prune(m.applied);
    if (m.type === "done") {
      const w = this.waiting.get(m.id!);
      this.waiting.delete(m.id!);
      if (m.error) w?.reject(new Error(`text index: ${m.error}`));
      else w?.resolve();
      return;
    }
    this.workerIdle = true;
    this.runIdleWork();
  }

  /** Log entries the indexer applied are pruned by the request thread (the store's writer), outside any transaction. */
  private prune(applied: number): void {
    if (applied - this.pruned < PRUNE_EVERY || this.sqlite.inTransaction || !this.sqlite.open) return;
    this.sqlite.prepare("DELETE FROM records_fts_changes WHERE id <= ?").run(applied);
    this.pruned = applied;
  }

  private runIdleWork(): void {
    if (this.closed || !this.workerIdle || this.touched.size === 0 || !this.idleWork || this.idleTimer) return;
    const quiet = Date.now() - this.lastWrite;
    if (quiet < IDLE_MS) {
      this.idleTimer = setTimeout(() => {
        this.idleTimer = null;
        this.runIdleWork();
      }, IDLE_MS - quiet);
      this.idleTimer.unref();
      return;
    }
    const datasets = [...this.touched];
    this.touched.clear();
    this.idleWork(datasets).catch((error: unknown) => {
      if (!this.closed) this.onError(error);
    });
  }
}

const indexes = new WeakMap<object, TextIndex>();

/** Registers the text index of an embedded store's Kysely instance (db/database.ts). */
export function registerTextIndex(db: Kysely<DB>, index: TextIndex): void {
  indexes.set(db, index);
}

/** The deferred text index of a SQLite store (one per Kysely instance); null on PostgreSQL (triggers keep its tsvectors). */
export function textIndexFor(db: Kysely<DB>): TextIndex | null {
  return indexes.get(db) ?? null;
}
