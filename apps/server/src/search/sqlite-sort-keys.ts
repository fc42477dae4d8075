import type { Kysely } from "kysely";
import type SQLite from "better-sqlite3";
import { rawSqliteOf } from "../db/database.js";
import type { DB } from "../db/schema.js";

/**
 * The records of a dataset that have a value of one sort key, in the order of a sort by it (ascending or
 * descending, ties by seq ascending: the SQL path's order); the records without one sort after them.
 */
export interface SortedRun {
  asc: Uint32Array;
  desc: Uint32Array;
}

/**
 * The sorted run of these keys (`seqs[i]`'s key: a number, or a string, which sorts after every number and
 * among strings by its UTF-8 bytes, as SQLite's BINARY collation does).
 */
export function sortedRun(seqs: ArrayLike<number>, keys: ArrayLike<number | string>): SortedRun {
  const n = seqs.length;
  // Strings ranked by their bytes; a key becomes (kind, rank) so that the comparison is numeric.
  const strings = [...new Set(Array.from(keys).filter((k): k is string => typeof k === "string"))];
  strings.sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
  const rank = new Map(strings.map((s, i) => [s, i]));
  const kind = new Uint8Array(n);
  const value = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const k = keys[i]!;
    if (typeof k === "string") {
      kind[i] = 1;
      value[i] = rank.get(k)!;
    } else value[i] = k;
  }
  const by = (i: number, j: number) => kind[i]! - kind[j]! || value[i]! - value[j]! || seqs[i]! - seqs[j]!;
  const order = Array.from({ length: n }, (_, i) => i).sort(by);
  const asc = Uint32Array.from(order, (i) => seqs[i]!);
  // Descending: the groups of equal keys in reverse, each still by seq ascending.
  const desc = new Uint32Array(n);
  let out = 0;
  for (let end = n; end > 0;) {
    let start = end - 1;
    while (start > 0 && kind[order[start - 1]!] === kind[order[end - 1]!] && value[order[start - 1]!] === value[order[end - 1]!]) start--;
    desc.set(asc.subarray(start, end), out);
    out += end - start;
    end = start;
  }
  return { asc, desc };
}

/** Suggestion rows read per step of a first load (each step in its own turn of the event loop). */
const LOAD_STEP = 50_000;
/** Runs kept (least recently used out first). */
const KEPT = 16;

type SuggestionProperty = "value" | "score" | "agent" | "type";

/**
 * The sort keys of one question's suggestions in memory (a sort by suggestion score or value), so that
 * such a sort walks its records in order instead of sorting every record of the dataset per call (the
 * queue sorted by suggestion score at 1M records: 13.8 s). The key of a record is what the SQL path sorts
 * by: the largest of the suggestion's values or scores (a multi-label suggestion has several), its agent
 * or type. Valid for one `suggestion_versions` version of the question (migration 0035: every write or
 * delete of one of its suggestions moves it), read again after a change.
 */
export class SuggestionKeys {
  private readonly runs = new Map<string, { version: number; run: SortedRun }>();
  /** Runs read (tests, diagnostics). */
  loads = 0;

  constructor(
    private readonly db: Kysely<DB>,
    private readonly options: { loadStep?: number } = {},
  ) {}

  /** Memory held (bytes). */
  get memoryBytes(): number {
    let bytes = 0;
    for (const { run } of this.runs.values()) bytes += run.asc.byteLength + run.desc.byteLength;
    return bytes;
  }

  /** The question's sorted run in the dataset, up to date; null without a SQLite connection. */
  async run(datasetId: string, questionId: string, property: SuggestionProperty): Promise<SortedRun | null> {
    const raw = rawSqliteOf(this.db);
    if (!raw) return null;
    const key = `${datasetId}\u0000${questionId}\u0000${property}`;
    for (let attempt = 0; attempt < 3; attempt++) {
      const version = await this.db.connection().execute(async () => versionOf(raw, questionId));
      const kept = this.runs.get(key);
      if (kept && kept.version === version) {
        this.runs.delete(key);
        this.runs.set(key, kept); // most recent last
        return kept.run;
      }
      const read = await this.read(raw, datasetId, questionId, property, version);
      if (!read) continue; // written meanwhile: read again
      this.loads++;
      this.runs.delete(key);
      this.runs.set(key, { version, run: read });
      for (const k of this.runs.keys()) if (this.runs.size > KEPT) this.runs.delete(k);
      return read;
    }
    return null;
  }

  /** The keys read step by step (rowid ranges of `suggestions`); null when the version moved meanwhile. */
  private async read(
    raw: SQLite.Database,
    datasetId: string,
    questionId: string,
    property: SuggestionProperty,
    version: number,
  ): Promise<SortedRun | null> {
    const step = this.options.loadStep ?? LOAD_STEP;
    const key =
      property === "agent" || property === "type"
        ? `g.${property}`
        : `(SELECT max(j.value) FROM json_each(g.${property === "score" ? "score" : "value"}) AS j)`;
    const statement = raw.prepare(
      `SELECT r.seq, k FROM (SELECT g.record_id, ${key} AS k FROM suggestions g WHERE g.rowid > ? AND g.rowid <= ? AND g.question_id = ?) AS s
       CROSS JOIN records r ON r.id = s.record_id WHERE r.dataset_id = ? AND k IS NOT NULL`,
    );
    const last = await this.db
      .connection()
      .execute(async () => (raw.prepare("SELECT coalesce(max(rowid), 0) FROM suggestions").pluck().get() as number) ?? 0);
    const seqs: number[] = [];
    const keys: (number | string)[] = [];
    for (let from = 0; from < last; from += step) {
      const moved = await this.db.connection().execute(async () => {
        if (versionOf(raw, questionId) !== version) return true;
        for (const [seq, k] of statement.raw().iterate(from, from + step, questionId, datasetId) as Iterable<[number, unknown]>) {
          seqs.push(seq);
          keys.push(typeof k === "number" || typeof k === "string" ? k : typeof k === "bigint" ? Number(k) : String(k));
        }
        return false;
      });
      if (moved) return null;
    }
    // Rows inserted after `last` moved the version: checked once more with the last step.
    const moved = await this.db.connection().execute(async () => versionOf(raw, questionId) !== version);
    return moved ? null : sortedRun(seqs, keys);
  }
}

function versionOf(raw: SQLite.Database, questionId: string): number {
  return (raw.prepare("SELECT version FROM suggestion_versions WHERE question_id = ?").pluck().get(questionId) as number | undefined) ?? 0;
}
