import type { Kysely } from "kysely";
import type SQLite from "better-sqlite3";
import { rawSqliteOf } from "../db/database.js";
import type { DB } from "../db/schema.js";
import type { SearchFilter, SearchQuery, SearchResult } from "./search-port.js";
import { RECORD_STATUSES, SqliteQueries, splitPending } from "./sqlite-sql.js";
import { type SortedRun, sortedRun } from "./sqlite-sort-keys.js";
import { recordStatusesOf } from "./sqlite-status.js";

/** Memory budget of the metadata columns of all datasets (bytes); least recently used columns go first. */
const DEFAULT_BUDGET = 128 * 1024 * 1024;
/**
 * Records read per step when a column is first loaded from the records' JSON, each step in its own
 * turn of the event loop: at 1M records the whole load is ~4 s of CPU, which in one piece stalled
 * every other request (20K records: ~70 ms per step).
 */
const DEFAULT_LOAD_STEP = 20_000;

/**
 * One metadata property of one dataset as a typed array indexed by `seq - base`: numbers (NaN when
 * absent) or dictionary codes of strings (-1 when absent). Only single-valued properties of one
 * type (all numbers or all strings) are kept; anything else (lists, mixed types) marks the column
 * unusable and the search keeps its SQL path, whose comparison rules then need no imitation.
 */
interface Column {
  kind: "num" | "str" | "unusable";
  nums: Float64Array;
  codes: Int32Array;
  dict: Map<string, number>;
  bytes: number;
}

/** A dataset's columns: same base seq and length for all; `upTo` = the dataset's largest seq they reflect; `version`: of search_index_versions. */
interface DatasetColumns {
  version: number;
  base: number;
  length: number;
  upTo: number;
  columns: Map<string, Column>;
}

type Predicate = (i: number) => boolean;

/** Cached match lists kept at most (least recently used out first), and their budget in bytes. */
const MATCH_LISTS = 64;
const MATCH_BYTES = 32 * 1024 * 1024;

/**
 * The seqs whose metadata pass one combination of metadata filters, ascending: what the walk over
 * every record computes before the caller's exclusions (record statuses, the caller's answers),
 * which change with every submit and are applied per call. Valid for the columns' `version` and
 * `base`; records appended since (`covered` up to the columns' length) are walked on the next use.
 */
interface MatchList {
  version: number;
  base: number;
  covered: number;
  seqs: Uint32Array;
  n: number;
}

/**
 * Metadata filters with the count (`metadata filter + count` of the annotation page) from in-memory
 * columns instead of one `record_metadata` probe per record and per filter (~0.4 ms per 1K records,
 * linear in the dataset). Applies to a search without text, vector or sort whose filters are metadata
 * terms/ranges (at least one), record status terms and response status `pending`: the metadata
 * filters run as a loop over typed arrays; records of the other statuses (in-memory statuses,
 * sqlite-status.ts) and answered records (few) are excluded, as the queue's text count does.
 * Kept exact: records inserted since are caught up by seq, metadata updates and deletes bump the
 * dataset's `search_index_versions` row (migration 0013), which reloads the dataset's columns.
 */
export class SqliteMetadata extends SqliteQueries {
  private readonly datasets = new Map<string, DatasetColumns>();
  /** LRU of loaded columns, least recent first: `${datasetId}\u0000${name}`. */
  private readonly lru = new Map<string, number>();
  private bytes = 0;
  /** Match lists by dataset and filters (`${datasetId}\u0000${filters}`), most recently used last. */
  private readonly matchLists = new Map<string, MatchList>();
  private matchBytes = 0;
  /** Sorted runs by dataset and property (sortedRun), valid for the column they were made from. */
  private readonly runs = new Map<string, { column: Column; version: number; base: number; upTo: number; run: SortedRun }>();

  /**
   * `budget`: bytes of columns kept; `fromRecords`: always load from the records' JSON (tests cover
   * both sources); `loadStep`: records per step of a first load from the records' JSON (larger
   * datasets are loaded step by step, see preload); `onLoadStep`: called between steps (tests).
   */
  constructor(
    db: Kysely<DB>,
    private readonly budget = DEFAULT_BUDGET,
    private readonly options: { fromRecords?: boolean; loadStep?: number; onLoadStep?: () => Promise<void> } = {},
  ) {
    super(db);
  }

  /** First loads done step by step, and those discarded because the dataset changed meanwhile (tests). */
  readonly steppedLoads = { done: 0, discarded: 0 };

  /** Memory held by the columns (bytes), for tests and measurements. */
  get memoryBytes(): number {
    return this.bytes;
  }

  /** Memory held by the sorted runs (bytes), for measurements. */
  get runBytes(): number {
    let bytes = 0;
    for (const { run } of this.runs.values()) bytes += run.asc.byteLength + run.desc.byteLength;
    return bytes;
  }

  /** Records whose metadata the filters were evaluated on so far (tests: a cached list is not walked again). */
  walked = 0;

  /** Memory held by the cached match lists (bytes), for tests and measurements. */
  get matchListBytes(): number {
    return this.matchBytes;
  }

  /** The result of the query, or null when its shape is not handled here (the caller runs SQL). */
  async search(query: SearchQuery): Promise<SearchResult | null> {
    const raw = rawSqliteOf(this.db);
    if (!raw || query.text || query.vector || query.sort.length > 0) return null;
    const shape = await this.columnsShape(query);
    if (!shape) return null;
    const { split, metadata, statuses } = shape;
    await this.preload(
      raw,
      query.datasetId,
      metadata.map((f) => (f.scope as { name: string }).name),
    );
    // Synchronous on the connection: no other request's statement runs between the reads.
    return this.db.connection().execute(async () => {
      const ds = this.load(
        raw,
        query.datasetId,
        metadata.map((f) => (f.scope as { name: string }).name),
      );
      if (!ds) return null;
      const predicates = predicatesOf(ds, metadata);
      if (!predicates) return null;
      const exclusions = queueExclusions(raw, query.datasetId, query.userId, statuses, split !== null);
      const excluded = exclusions.byStatus || exclusions.answered.size > 0 ? exclusions.excluded : null;
      // Walk the matches in seq order: count everything, keep the page.
      const matches = this.matchesOf(query.datasetId, JSON.stringify(metadata), ds, predicates);
      const page: number[] = [];
      let total = 0;
      for (let k = 0; k < matches.n; k++) {
        const seq = matches.seqs[k]!;
        if (excluded !== null && excluded(seq)) continue;
        if (total >= query.offset && page.length < query.limit) page.push(seq);
        total++;
      }
      if (page.length === 0) return { hits: [], total };
      const rows = raw
        .prepare("SELECT r.seq AS seq, r.id AS id FROM json_each(?) AS c CROSS JOIN records r ON r.seq = c.value WHERE r.dataset_id = ?")
        .all(JSON.stringify(page), query.datasetId) as { seq: number; id: string }[];
      const idOf = new Map(rows.map((r) => [r.seq, r.id]));
      return { hits: page.filter((s) => idOf.has(s)).map((s) => ({ recordId: idOf.get(s)!, score: null })), total };
    });
  }

  /**
   * The same filters as `search` handles (metadata terms/ranges with record status terms and response
   * status `pending`) as one test per seq, from the in-memory columns: a text search's bounded total
   * walks its matches with it (sqlite-text.ts) instead of probing `record_metadata` per match. Null
   * when the filters have another shape. Brought up to date now: use it within the same request.
   */
  async seqFilter(query: SearchQuery): Promise<((seq: number) => boolean) | null> {
    const raw = rawSqliteOf(this.db);
    if (!raw || query.vector) return null;
    const shape = await this.columnsShape(query);
    if (!shape) return null;
    const { split, metadata, statuses } = shape;
    const names = metadata.map((f) => (f.scope as { name: string }).name);
    await this.preload(raw, query.datasetId, names);
    return this.db.connection().execute(async () => {
      const ds = this.load(raw, query.datasetId, names);
      if (!ds) return null;
      const predicates = predicatesOf(ds, metadata);
      if (!predicates) return null;
      const { excluded } = queueExclusions(raw, query.datasetId, query.userId, statuses, split !== null);
      const { base, length } = ds;
      return (seq: number) => {
        const i = seq - base;
        if (i < 0 || i >= length) return false;
        for (const p of predicates) if (!p(i)) return false;
        return !excluded(seq);
      };
    });
  }

  /**
   * The dataset's records with a value of this property in the order of a sort by it (sqlite-candidates.ts), from its
   * column: at 1M records a sort by a metadata property read and sorted every record per call (the queue sorted by
   * `length`: 5.4 s). Kept until the column changes. Null when the column cannot answer (lists, mixed types, strings
   * that read as numbers, odd names: the SQL path sorts those).
   */
  async sortedRun(datasetId: string, name: string): Promise<SortedRun | null> {
    const raw = rawSqliteOf(this.db);
    if (!raw || !SIMPLE_NAME.test(name)) return null;
    await this.preload(raw, datasetId, [name]);
    return this.db.connection().execute(async () => {
      const ds = this.load(raw, datasetId, [name]);
      const column = ds?.columns.get(name);
      if (!ds || !column || column.kind === "unusable") return null;
      const key = `${datasetId}\u0000${name}`;
      const kept = this.runs.get(key);
      if (kept && kept.column === column && kept.version === ds.version && kept.base === ds.base && kept.upTo === ds.upTo) return kept.run;
      const end = Math.min(ds.length, ds.upTo - ds.base + 1);
      const seqs: number[] = [];
      const keys: (number | string)[] = [];
      const strings = column.kind === "str" ? [...column.dict.keys()] : [];
      for (let i = 0; i < end; i++) {
        if (column.kind === "num") {
          const v = column.nums[i];
          if (v === undefined || Number.isNaN(v)) continue;
          keys.push(v);
        } else {
          const c = column.codes[i];
          if (c === undefined || c < 0) continue;
          keys.push(strings[c]!);
        }
        seqs.push(ds.base + i);
      }
      const run = sortedRun(seqs, keys);
      this.runs.delete(key);
      this.runs.set(key, { column, version: ds.version, base: ds.base, upTo: ds.upTo, run });
      for (const k of this.runs.keys()) if (this.runs.size > 8) this.runs.delete(k);
      return run;
    });
  }

  /** The filters the columns answer: metadata (at least one), record status terms, response status `pending`; else null. */
  private async columnsShape(
    query: SearchQuery,
  ): Promise<{ split: { others: SearchFilter[] } | null; metadata: SearchFilter[]; statuses: SearchFilter[] } | null> {
    const split = splitPending(query.filters);
    const others = split ? split.others : query.filters;
    const metadata = others.filter((f) => f.scope.entity === "metadata");
    const statuses = others.filter((f) => f.type === "terms" && f.scope.entity === "record" && f.scope.property === "status");
    if (metadata.length === 0 || metadata.length + statuses.length !== others.length) return null;
    if (!metadata.every(paramsSupported)) return null;
    if (split && query.userId === null && !(await this.answeredSetIsSmall(query.datasetId))) return null;
    return { split, metadata, statuses };
  }

  /**
   * The records passing these metadata filters, from the cached list brought up to date (the
   * records appended since walked), or from a walk over every record of the columns (at 1M records
   * ~10 ms of CPU per call when it ran on every call). Synchronous on the connection.
   */
  private matchesOf(datasetId: string, filters: string, ds: DatasetColumns, predicates: Predicate[]): MatchList {
    const key = `${datasetId}\u0000${filters}`;
    let list = this.matchLists.get(key);
    if (list) this.matchLists.delete(key);
    if (!list || list.version !== ds.version || list.base !== ds.base) {
      if (list) this.matchBytes -= list.seqs.byteLength;
      list = { version: ds.version, base: ds.base, covered: 0, seqs: new Uint32Array(1024), n: 0 };
      this.matchBytes += list.seqs.byteLength;
    }
    this.matchLists.set(key, list); // most recent last
    // Indexes up to the columns' largest seq hold their final values; above it, records yet to come.
    const end = Math.min(ds.length, ds.upTo - ds.base + 1);
    const first = predicates[0]!;
    const rest = predicates.slice(1);
    for (let i = list.covered; i < end; i++) {
      if (!first(i)) continue;
      let ok = true;
      for (const p of rest)
        if (!p(i)) {
          ok = false;
          break;
        }
      if (!ok) continue;
      if (list.n === list.seqs.length) {
        const seqs = new Uint32Array(list.seqs.length * 2);
        seqs.set(list.seqs);
        this.matchBytes += seqs.byteLength - list.seqs.byteLength;
        list.seqs = seqs;
      }
      list.seqs[list.n++] = ds.base + i;
    }
    this.walked += Math.max(0, end - list.covered);
    list.covered = Math.max(list.covered, end);
    for (const [k, old] of this.matchLists) {
      if (this.matchLists.size <= MATCH_LISTS && this.matchBytes <= MATCH_BYTES) break;
      if (old === list) continue;
      this.matchLists.delete(k);
      this.matchBytes -= old.seqs.byteLength;
    }
    return list;
  }

  /** Loads (or brings up to date) the dataset's columns of these properties ahead of a first filter (search/warm-up.ts). */
  async warm(datasetId: string, names: string[]): Promise<void> {
    const raw = rawSqliteOf(this.db);
    if (!raw) return;
    await this.preload(raw, datasetId, names);
    await this.db.connection().execute(async () => {
      this.load(raw, datasetId, names);
    });
  }

  /**
   * After a write: the dataset's loaded columns (and the record statuses the queue excludes by) caught
   * up with the new records, if they are at the dataset's current version; columns not loaded yet are
   * loaded only while the dataset is small (fewer records than a load step: from the start of an
   * import). So the warm-up after an import has the last batch left instead of every record. Returns
   * whether anything was brought up to date.
   */
  async follow(datasetId: string, names: string[]): Promise<boolean> {
    const raw = rawSqliteOf(this.db);
    if (!raw || names.length === 0 || names.some((name) => !SIMPLE_NAME.test(name))) return false;
    return this.db.connection().execute(async () => {
      const ds = this.datasets.get(datasetId);
      const state = datasetState(raw, datasetId);
      const small = state.hi === null || state.hi - state.lo! < (this.options.loadStep ?? DEFAULT_LOAD_STEP);
      const current = ds !== undefined && ds.version === state.version && names.every((name) => ds.columns.has(name));
      if (!current && !small) return false;
      this.load(raw, datasetId, names);
      const statuses = recordStatusesOf(raw);
      if (statuses.has(datasetId) || small) statuses.of(datasetId);
      return true;
    });
  }

  /** The dataset's loaded columns and whether each is usable (tests, diagnostics). */
  loadedColumns(datasetId: string): Record<string, boolean> {
    return Object.fromEntries(
      [...(this.datasets.get(datasetId)?.columns ?? new Map<string, Column>())].map(([name, c]) => [name, c.kind !== "unusable"]),
    );
  }

  /**
   * A first load of large columns from the records' JSON, step by step (`loadStep` records per
   * step, each in its own turn of the event loop), before the synchronous query: the values of the
   * dataset's records up to its largest seq at the start. Installed only if the dataset's version
   * (metadata updates, deletes: migration 0013) did not move meanwhile, and then caught up like any
   * column; else dropped, and the synchronous path loads them. Records inserted meanwhile have larger
   * seqs and are caught up by that path.
   */
  private async preload(raw: SQLite.Database, datasetId: string, names: string[]): Promise<void> {
    const step = this.options.loadStep ?? DEFAULT_LOAD_STEP;
    const loaded = this.datasets.get(datasetId);
    const missing = [...new Set(names)].filter((name) => !loaded?.columns.has(name));
    if (missing.length === 0 || names.some((name) => !SIMPLE_NAME.test(name))) return;
    // Reads on the connection only inside connection().execute: no other request's transaction is open then.
    const { state, indexed } = await this.db.connection().execute(async () => ({
      state: datasetState(raw, datasetId),
      indexed: (raw.prepare("SELECT seq FROM search_index_state WHERE name = 'record_metadata'").pluck().get() as number | undefined) ?? -1,
    }));
    if (state.hi === null || state.hi - state.lo! < step) return; // small: the synchronous path
    if (!this.options.fromRecords && indexed >= state.hi) return; // from record_metadata: ~5x cheaper, synchronous
    const base = state.lo!;
    const length = state.hi - base + 1;
    const columns = new Map(missing.map((name) => [name, emptyColumn()]));
    for (let from = base - 1; from < state.hi; from += step) {
      await this.db.connection().execute(async () => {
        for (const [seq, name, value, type] of valuesOf(raw, datasetId, missing, from, Math.min(from + step, state.hi!)))
          set(columns.get(name)!, seq - base, value, length, type);
      });
      await this.options.onLoadStep?.();
      await new Promise((resolve) => setImmediate(resolve));
    }
    await this.db.connection().execute(async () => {
      const now = datasetState(raw, datasetId);
      let ds = this.datasets.get(datasetId);
      if (now.version !== state.version || (ds && (ds.version !== state.version || ds.base !== base))) {
        this.steppedLoads.discarded++;
        return;
      }
      if (!ds) {
        ds = { version: state.version, base, length, upTo: state.hi!, columns: new Map() };
        this.datasets.set(datasetId, ds);
      }
      if (ds.length < length) this.grow(ds, length);
      // Every column of the dataset must reflect the same records (up to `upTo`): a value set twice makes a column unusable.
      if (ds.upTo > state.hi!) {
        // Records another query caught the dataset's columns up to meanwhile.
        for (const [seq, name, value, type] of valuesOf(raw, datasetId, missing, state.hi!, ds.upTo))
          set(columns.get(name)!, seq - base, value, ds.length, type);
      } else if (ds.upTo < state.hi!) {
        // The dataset's other columns, up to where this load read.
        this.catchUp(raw, datasetId, ds, state.hi!);
      }
      this.install(ds, new Map([...columns].filter(([name]) => !ds.columns.has(name))));
      this.steppedLoads.done++;
    });
  }

  /**
   * The dataset's columns for these names, loaded or brought up to date; null for property names
   * left to SQL. A new column comes from `record_metadata` when that index is up to date, else from
   * the records' JSON (`valuesOf`), so that a metadata filter needs no catch-up of the index first
   * (~25 s of CPU at 1M records, holding the connection); new records always come from their JSON.
   */
  private load(raw: SQLite.Database, datasetId: string, names: string[]): DatasetColumns | null {
    if (names.some((name) => !SIMPLE_NAME.test(name))) return null;
    const state = datasetState(raw, datasetId);
    const version = state.version;
    let ds = this.datasets.get(datasetId);
    if (!ds || ds.version !== version) {
      if (ds) this.drop(datasetId, ds);
      ds = {
        version,
        base: state.lo ?? 0,
        length: state.lo === null ? 0 : state.hi! - state.lo + 1,
        upTo: state.hi ?? 0,
        columns: new Map(),
      };
      this.datasets.set(datasetId, ds);
    }
    if (state.hi !== null && state.hi > ds.upTo) {
      // Records inserted since (`records_dataset_seq_idx`): seqs only grow unless the largest is deleted, which bumps the version.
      if (ds.length === 0) ds.base = state.lo!;
      this.grow(ds, state.hi - ds.base + 1);
      this.catchUp(raw, datasetId, ds, state.hi);
    }
    const missing = names.filter((name, i) => !ds.columns.has(name) && names.indexOf(name) === i);
    if (missing.length > 0) {
      const columns = new Map(missing.map((name) => [name, emptyColumn()]));
      // From record_metadata when it is up to date (one index range per property, ~5x cheaper than
      // reading the records, whose metadata sits after the text in the row), else from the records.
      const indexed =
        (raw.prepare("SELECT seq FROM search_index_state WHERE name = 'record_metadata'").pluck().get() as number | undefined) ?? -1;
      if (!this.options.fromRecords && state.hi !== null && indexed >= state.hi) {
        for (const [name, column] of columns) {
          for (const [seq, value] of raw
            .prepare("SELECT seq, value FROM record_metadata WHERE dataset_id = ? AND name = ?")
            .raw()
            .iterate(datasetId, name) as Iterable<[number, unknown]>) {
            set(column, seq - ds.base, value, ds.length, null);
            if (column.kind === "unusable") break;
          }
        }
      } else if (state.hi !== null) {
        for (const [seq, name, value, type] of valuesOf(raw, datasetId, missing, null))
          set(columns.get(name)!, seq - ds.base, value, ds.length, type);
      }
      this.install(ds, columns);
    }
    for (const name of names) {
      const key = `${datasetId}\u0000${name}`;
      this.lru.delete(key);
      this.lru.set(key, 0);
    }
    this.evict(datasetId, names);
    return ds;
  }

  /** The dataset's usable columns brought from the records up to `ds.upTo` to those up to `hi`. */
  private catchUp(raw: SQLite.Database, datasetId: string, ds: DatasetColumns, hi: number): void {
    const usable = new Map([...ds.columns].filter(([, c]) => c.kind !== "unusable"));
    if (usable.size > 0)
      for (const [seq, name, value, type] of valuesOf(raw, datasetId, [...usable.keys()], ds.upTo, hi))
        set(usable.get(name)!, seq - ds.base, value, ds.length, type);
    for (const column of usable.values()) this.account(column);
    ds.upTo = hi;
  }

  /** New columns into the dataset (an unusable one keeps no arrays). */
  private install(ds: DatasetColumns, columns: Map<string, Column>): void {
    for (const [name, column] of columns) {
      if (column.kind === "unusable") {
        column.nums = new Float64Array(0);
        column.codes = new Int32Array(0);
        column.dict.clear();
      } else growColumn(column, ds.length);
      ds.columns.set(name, column);
      this.account(column);
    }
  }

  private grow(ds: DatasetColumns, length: number): void {
    if (length <= ds.length) return;
    ds.length = length;
    for (const column of ds.columns.values()) {
      if (column.kind === "unusable") continue;
      growColumn(column, length);
      this.account(column);
    }
  }

  /** Re-measures a column after it changed. */
  private account(column: Column): void {
    const bytes = columnBytes(column);
    this.bytes += bytes - column.bytes;
    column.bytes = bytes;
  }

  private drop(datasetId: string, ds: DatasetColumns): void {
    for (const [name, column] of ds.columns) {
      this.bytes -= column.bytes;
      this.lru.delete(`${datasetId}\u0000${name}`);
    }
    this.datasets.delete(datasetId);
  }

  /** Least recently used columns out until the budget holds (never the ones this query needs). */
  private evict(datasetId: string, keep: string[]): void {
    for (const key of this.lru.keys()) {
      if (this.bytes <= this.budget) return;
      const [id, name] = key.split("\u0000") as [string, string];
      if (id === datasetId && keep.includes(name)) continue;
      const ds = this.datasets.get(id);
      const column = ds?.columns.get(name);
      if (ds && column) {
        this.bytes -= column.bytes;
        ds.columns.delete(name);
      }
      this.lru.delete(key);
    }
  }
}

/** What the annotation queue's filters leave out, as a predicate on the dataset's seqs. */
export interface QueueExclusions {
  /** Whether the record of this seq (one of the dataset's) is left out. */
  excluded: (seq: number) => boolean;
  /** Some record statuses are left out (else only `answered`). */
  byStatus: boolean;
  /** The answered records' seqs (few: the user's responses). */
  answered: Set<number>;
  /** The seqs left out, in order (the dataset's records of the statuses left out, and the answered seqs), or null when more than `max`. */
  list: (max: number) => Uint32Array | null;
}

/** The union of a sorted seq list and a set of seqs, in order, or null when more than `max`. */
function unionOf(sorted: Uint32Array, others: Set<number>, max: number): Uint32Array | null {
  const merged = new Uint32Array(sorted.length + others.size);
  merged.set(sorted);
  let n = sorted.length;
  for (const seq of others) merged[n++] = seq;
  merged.sort();
  let m = 0;
  for (let i = 0; i < n; i++) if (m === 0 || merged[m - 1] !== merged[i]) merged[m++] = merged[i]!;
  return m > max ? null : merged.slice(0, m);
}

/**
 * The annotation queue's exclusions: with record status terms filters, the seqs that are not a record
 * of the dataset with a status they all list (as SQL reads them), from the in-memory statuses kept
 * per dataset (sqlite-status.ts: a lookup instead of reading every record of those statuses per call,
 * 500K completed of 1M: 150-170 -> 7-11 ms of CPU per call) and, with response status `pending`, the answered records
 * (of the user, or of anyone). The answered seqs come from the covering `records.id` index without
 * reading the record rows (5x cheaper: 3,500 responses in 2.2 instead of 12 ms), so they may include
 * records of other datasets: callers only look up seqs of the dataset's own records.
 */
export function queueExclusions(
  raw: SQLite.Database,
  datasetId: string,
  userId: string | null,
  statuses: SearchFilter[],
  pending: boolean,
): QueueExclusions {
  // Record statuses are `pending` and `completed` (records/status.ts): the codes (1 + index) every
  // filter lists are kept; code 0 (no record of the dataset at that seq, e.g. moved away) is not.
  const kept = Uint8Array.from({ length: RECORD_STATUSES.length + 1 }, (_, code) => (code > 0 ? 1 : 0));
  let byStatus = false;
  for (const f of statuses) {
    if (f.type !== "terms") continue;
    byStatus = true;
    RECORD_STATUSES.forEach((v, k) => {
      if (!f.values.includes(v)) kept[k + 1] = 0;
    });
  }
  const answered = new Set<number>();
  if (pending) {
    const seqs =
      userId !== null
        ? raw
            .prepare("SELECT r.seq FROM responses mine CROSS JOIN records r ON r.id = mine.record_id WHERE mine.user_id = ?")
            .pluck()
            .all(userId)
        : raw
            .prepare("SELECT r.seq FROM (SELECT DISTINCT record_id FROM responses) AS mine CROSS JOIN records r ON r.id = mine.record_id")
            .pluck()
            .all();
    for (const seq of seqs as number[]) answered.add(seq);
  }
  const none = new Uint32Array(0);
  if (!byStatus) return { excluded: (seq) => answered.has(seq), byStatus, answered, list: (max) => unionOf(none, answered, max) };
  const keptStatuses = recordStatusesOf(raw);
  const status = keptStatuses.of(datasetId);
  // The codes of the statuses left out (code 0, no record of the dataset, is no record a search matches).
  const left = kept.map((k, code) => (code > 0 && k === 0 ? 1 : 0));
  return {
    excluded: (seq) => kept[status.code(seq)] === 0 || answered.has(seq),
    byStatus,
    answered,
    list: (max) => {
      const byCode = keptStatuses.seqsWith(datasetId, left, max);
      return byCode && unionOf(byCode, answered, max);
    },
  };
}

/**
 * Property names handled by the columns: a top-level JSON array's keys are integers, which
 * `record_metadata.name` (TEXT) holds as digits; such names and odd ones stay with SQL.
 */
const SIMPLE_NAME = /^[A-Za-z_][A-Za-z0-9_\- .:]*$/;

/**
 * These properties' values in the dataset's records (seq above `after`), in one pass over the
 * records: [seq, name, value, JSON type]. A list or object value (several values in
 * `record_metadata`) makes the column unusable in `set`, JSON nulls are left out as there.
 */
function valuesOf(
  raw: SQLite.Database,
  datasetId: string,
  names: string[],
  after: number | null,
  upTo: number | null = null,
): [number, string, unknown, string][] {
  const range = `${after !== null ? " AND r.seq > ?" : ""}${upTo !== null ? " AND r.seq <= ?" : ""}`;
  return raw
    .prepare(
      `SELECT r.seq, k.key, k.value, k.type FROM records r, json_each(r.metadata) AS k WHERE r.dataset_id = ?${range}
      AND r.metadata IS NOT NULL AND k.key IN (${names.map(() => "?").join(", ")}) AND k.type <> 'null'`,
    )
    .raw()
    .all(datasetId, ...(after !== null ? [after] : []), ...(upTo !== null ? [upTo] : []), ...names) as [number, string, unknown, string][];
}

/** The dataset's columns version (migration 0013) and seq range. */
function datasetState(raw: SQLite.Database, datasetId: string): { version: number; lo: number | null; hi: number | null } {
  const state = raw
    .prepare(
      `SELECT (SELECT version FROM search_index_versions WHERE dataset_id = ?) AS version,
    (SELECT min(seq) FROM records WHERE dataset_id = ?) AS lo, (SELECT max(seq) FROM records WHERE dataset_id = ?) AS hi`,
    )
    .get(datasetId, datasetId, datasetId) as { version: number | null; lo: number | null; hi: number | null };
  return { ...state, version: state.version ?? 0 };
}

/** Grows a column's array to `length` entries (absent: NaN or -1). */
function growColumn(column: Column, length: number): void {
  if (column.nums.length > 0 && column.nums.length < length) {
    const next = new Float64Array(capacity(length)).fill(NaN);
    next.set(column.nums);
    column.nums = next;
  }
  if (column.codes.length > 0 && column.codes.length < length) {
    const next = new Int32Array(capacity(length)).fill(-1);
    next.set(column.codes);
    column.codes = next;
  }
}

const capacity = (length: number) => Math.max(1024, Math.ceil(length * 1.25));
const columnBytes = (c: Column) => c.nums.byteLength + c.codes.byteLength + c.dict.size * 64;

function emptyColumn(): Column {
  // The kind is set by the first value, which allocates its array.
  return { kind: "num", nums: new Float64Array(0), codes: new Int32Array(0), dict: new Map(), bytes: 0 };
}

/**
 * Stores one value at index i (`length`: the dataset's current length); a second value for the same
 * record, a second type, a list or object (`type`, from the records' JSON) make the column unusable.
 * Values read from the records' JSON differ from `record_metadata` in one way: its `value` column has
 * NUMERIC affinity, so a string that reads as a number is a number there; such strings also make the
 * column unusable (from either source), so that SQL answers for them.
 */
function set(column: Column, i: number, value: unknown, length: number, type: string | null): void {
  if (column.kind === "unusable") return;
  if (i < 0 || type === "array" || type === "object") {
    column.kind = "unusable";
    return;
  }
  if (typeof value === "number") {
    if (column.codes.length > 0 || (Number.isInteger(value) && !Number.isSafeInteger(value))) {
      column.kind = "unusable";
      return;
    }
    column.kind = "num";
    if (column.nums.length <= i) {
      const next = new Float64Array(capacity(Math.max(i + 1, length))).fill(NaN);
      next.set(column.nums);
      column.nums = next;
    }
    if (!Number.isNaN(column.nums[i]!)) {
      column.kind = "unusable";
      return;
    }
    column.nums[i] = value;
  } else if (typeof value === "string") {
    if (column.nums.length > 0 || looksNumeric(value)) {
      column.kind = "unusable";
      return;
    }
    column.kind = "str";
    if (column.codes.length <= i) {
      const next = new Int32Array(capacity(Math.max(i + 1, length))).fill(-1);
      next.set(column.codes);
      column.codes = next;
    }
    if (column.codes[i] !== -1) {
      column.kind = "unusable";
      return;
    }
    let code = column.dict.get(value);
    if (code === undefined) {
      code = column.dict.size;
      column.dict.set(value, code);
    }
    column.codes[i] = code;
  } else column.kind = "unusable";
}

/**
 * Filter values whose SQL comparison with the stored values is plain equality or numeric order:
 * numbers (and booleans, bound as 0/1), and strings that SQLite's NUMERIC affinity would not turn
 * into numbers (those run through SQL).
 */
function paramsSupported(f: SearchFilter): boolean {
  if (f.type === "terms")
    return f.values.every(
      (v) => typeof v === "boolean" || (typeof v === "number" && Number.isFinite(v)) || (typeof v === "string" && !looksNumeric(v)),
    );
  return [f.ge, f.le].every((v) => v === null || (typeof v === "number" && Number.isFinite(v)));
}

const looksNumeric = (s: string) => /^\s*[-+]?(\d|\.\d)/.test(s) || /^\s*$/.test(s);

function predicate(column: Column, f: SearchFilter): Predicate | null {
  if (column.kind === "unusable") return null;
  if (f.type === "range") {
    // A range on strings compares text in SQL (text sorts after numbers): not imitated here.
    if (column.kind === "str" && column.codes.length > 0) return null;
    const nums = column.nums;
    const ge = f.ge === null ? -Infinity : Number(f.ge);
    const le = f.le === null ? Infinity : Number(f.le);
    // NaN (no value) fails both comparisons, as a missing row fails the EXISTS.
    return (i) => {
      const v = nums[i]!;
      return v >= ge && v <= le;
    };
  }
  const values = f.values.map((v) => (typeof v === "boolean" ? (v ? 1 : 0) : v));
  if (column.kind === "num" && column.nums.length > 0) {
    const wanted = values.filter((v): v is number => typeof v === "number");
    const nums = column.nums;
    return (i) => wanted.includes(nums[i]!);
  }
  if (column.codes.length === 0) return () => false;
  const allowed = new Uint8Array(column.dict.size);
  for (const v of values) {
    if (typeof v === "string") {
      const code = column.dict.get(v);
      if (code !== undefined) allowed[code] = 1;
    }
  }
  const codes = column.codes;
  return (i) => {
    const c = codes[i]!;
    return c >= 0 && allowed[c] === 1;
  };
}

/** One predicate per metadata filter on the dataset's columns, or null when one of them cannot be answered there. */
function predicatesOf(ds: DatasetColumns, metadata: SearchFilter[]): Predicate[] | null {
  const predicates: Predicate[] = [];
  for (const f of metadata) {
    const p = predicate(ds.columns.get((f.scope as { name: string }).name)!, f);
    if (p === null) return null;
    predicates.push(p);
  }
  return predicates;
}
