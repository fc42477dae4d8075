import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { backgroundErrorLogger } from "../db/availability.js";
import { BackgroundLoop } from "./background-loop.js";
import { queryRows } from "./postgres-sql.js";

/** Datasets with at least this many records get a vocabulary; below it a prefix's probe and walk cost a few ms. */
const MIN_RECORDS = 10_000;
/** A dataset's text version must stay the same this long (seen by this replica) before its vocabulary is read. */
const SETTLE_MS = 5000;
const TICK_MS = 5000;
/** A prefix's words are looked for among those sharing its first characters (a few hundred of 500K). */
const KEY_LENGTH = 2;
/** Distinct lexemes kept per dataset at most (~50 bytes each in the heap); a larger vocabulary is not kept (the prefixes' walk). */
const MAX_WORDS = 500_000;

/**
 * Every lexeme of a dataset's text fields at its text version (per replica, in memory), so that a prefix
 * (`word*`) becomes the words it covers (issue 31): `tsv @@ ('w1' | 'w2' | ...)` is read from `records_fts`'s
 * bucket index like a phrase's words (postgres-text-walk.ts), where `tsv @@ 'w':*` makes PostgreSQL's GIN
 * collect the posting lists of every covered word over the whole table first (1M bench records, three sparse
 * prefixes through 6-15 buckets: 27-66 ms for that bitmap alone) and the other paths check rows in seq order
 * (~0.9 µs a row: 12-28 ms for a window of 1,000 matches, after a probe of 4,000 rows, ~7 ms); the covered
 * words through the buckets read the window in ~6 ms.
 *
 * Read with `ts_stat` over the dataset's rows in one snapshot with its text version (migration 0017), once
 * the version stayed the same SETTLE_MS: 1.75-6.6 s of PostgreSQL CPU per 100K rows by the load (the bench's two
 * replicas read 1M records of two fields in 54-121 s at load 2-5), once per replica and version, at most a quarter
 * of the time (a trickle of imports does not keep a core busy; a Submit does not move the version). A search uses
 * it only at the version it reads in its own snapshot (postgres-text-walk.ts), so a record added or edited since
 * leaves the prefixes on their other paths until the next read. The version has the cached matches' limits
 * (postgres-text.ts): a writer that took its change id before another's and commits after it is seen late.
 */
export class PostgresTextVocabulary {
  /** Per dataset, its lexemes by their first KEY_LENGTH characters (null: more than `maxWords`). */
  private readonly words = new Map<string, { version: number; words: Map<string, string[]> | null; size: number }>();
  private readonly seen = new Map<string, { version: number; since: number }>();
  private backend: number | null = null;
  /** No read before this time: each read waits 3 times its duration after it (at most a quarter of a core, as postgres-rank-ahead.ts). */
  private notBefore = 0;
  private readonly loop = new BackgroundLoop(() => this.tick(), backgroundErrorLogger("PostgreSQL: reading the text vocabulary failed"));

  constructor(
    private readonly db: Kysely<DB>,
    /** `rest`: how many times its duration a read waits after it (3; tests 0 or more). */
    private readonly options: { minRecords?: number; settleMs?: number; tickMs?: number; maxWords?: number; rest?: number } = {},
  ) {}

  /**
   * The dataset's lexemes starting with `prefix` at text version `version`; null when its vocabulary
   * was not read at that version (or is too large to keep).
   */
  expand(datasetId: string, version: number, prefix: string): string[] | null {
    const entry = this.words.get(datasetId);
    if (!entry || entry.version !== version || !entry.words) return null;
    const lists =
      prefix.length >= KEY_LENGTH
        ? [entry.words.get(prefix.slice(0, KEY_LENGTH)) ?? []]
        : [...entry.words.entries()].filter(([key]) => key.startsWith(prefix)).map(([, list]) => list);
    return lists.flatMap((list) => list.filter((word) => word.startsWith(prefix))).sort();
  }

  /** Lexemes held, all datasets (memory: ~50 bytes each). */
  get size(): number {
    let n = 0;
    for (const entry of this.words.values()) n += entry.size;
    return n;
  }

  /** Reads a dataset's vocabulary now, at its current text version (the background loop; tests). */
  async read(datasetId: string): Promise<void> {
    const found = await this.db
      .transaction()
      .setIsolationLevel("repeatable read")
      .execute(async (trx) => {
        this.backend = Number((await queryRows<{ pid: number }>(trx, "SELECT pg_backend_pid() AS pid", []))[0]!.pid);
        const version = Number(
          (
            await queryRows<{ v: number | string }>(
              trx,
              "SELECT coalesce(max(id), 0) AS v FROM text_search_changes WHERE dataset_id = $1",
              [datasetId],
            )
          )[0]!.v,
        );
        // A dataset holding every seq of its range (its counter says as many records as seqs, as postgres-text-walk.ts checks):
        // its rows by range, without the join with `records` (which doubled the read: 12.2 against 6.6 s over 50K records, load 4).
        const rows = await queryRows<{ word: string }>(
          trx,
          `SELECT word FROM ts_stat((SELECT CASE WHEN count(*) = (SELECT coalesce(sum(n), 0) FROM dataset_record_counts WHERE dataset_id = $1)
              AND count(*) = max(seq) - min(seq) + 1
            THEN format('SELECT tsv FROM records_fts WHERE record_seq >= %s AND record_seq <= %s', min(seq), max(seq))
            ELSE format('SELECT f.tsv FROM records_fts f JOIN records r ON r.seq = f.record_seq WHERE r.dataset_id = %L', $1::text) END
            FROM records WHERE dataset_id = $1))`,
          [datasetId],
        );
        return { version, rows };
      })
      .finally(() => {
        this.backend = null;
      });
    const max = this.options.maxWords ?? MAX_WORDS;
    let words: Map<string, string[]> | null = null;
    if (found.rows.length <= max) {
      words = new Map();
      for (const { word } of found.rows) {
        const key = word.slice(0, KEY_LENGTH);
        const list = words.get(key);
        if (list) list.push(word);
        else words.set(key, [word]);
      }
    }
    this.words.set(datasetId, { version: found.version, words, size: words ? found.rows.length : 0 });
  }

  /** One look: reads the vocabulary of each large enough dataset whose text version settled and is not read yet. */
  async tick(): Promise<void> {
    const rows = await queryRows<{ id: string; version: number | string }>(
      this.db,
      `SELECT d.id, (SELECT coalesce(max(t.id), 0) FROM text_search_changes t WHERE t.dataset_id = d.id) AS version FROM datasets d
       WHERE (SELECT coalesce(sum(c.n), 0) FROM dataset_record_counts c WHERE c.dataset_id = d.id) >= $1`,
      [this.options.minRecords ?? MIN_RECORDS],
    );
    const live = new Set(rows.map((r) => r.id));
    for (const map of [this.words, this.seen]) for (const id of map.keys()) if (!live.has(id)) map.delete(id);
    const now = Date.now();
    for (const row of rows) {
      const version = Number(row.version);
      const seen = this.seen.get(row.id);
      if (!seen || seen.version !== version) {
        this.seen.set(row.id, { version, since: now });
        continue;
      }
      if (this.words.get(row.id)?.version === version || now - seen.since < (this.options.settleMs ?? SETTLE_MS)) continue;
      if (Date.now() < this.notBefore) return;
      const started = Date.now();
      await this.read(row.id);
      this.notBefore = Date.now() + (this.options.rest ?? 3) * (Date.now() - started);
    }
  }

  /** Looks every TICK_MS (unref'd) until `stop`. */
  start(): void {
    this.loop.start(this.options.tickMs ?? TICK_MS);
  }

  /** Stops looking, cancels a read in progress (a minute at 1M records) and waits for it to end. */
  async stop(): Promise<void> {
    const running = this.loop.stop();
    if (this.backend !== null) await queryRows(this.db, "SELECT pg_cancel_backend($1)", [this.backend]).catch(() => undefined);
    await running;
  }
}
