import type { Kysely } from "kysely";
import type { DB } from "../db/schema.js";
import { backgroundErrorLogger } from "../db/availability.js";
import { BackgroundLoop } from "./background-loop.js";
import { datasetTextVersions, queryRows, textVersion } from "./postgres-sql.js";
import { backendPid, cancelBackend } from "./postgres-backend.js";

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
 * the version stayed the same SETTLE_MS: 1.75-6.6 s of PostgreSQL CPU per 100K rows by the load (1M records of
 * two fields: ~25-60 s), at most a quarter of the time (a trickle of imports does not keep a core busy; a Submit
 * does not move the version). Read once per version for all replicas (migration 0032, `text_vocabulary`): the
 * replica that reads holds the dataset's row locked, the others skip it meanwhile and load the stored words
 * (`loads`) once they are there, as a restart does, with no settling (each replica read them itself before: two
 * replicas spent 54-121 s of PostgreSQL CPU after each start and settled import at 1M). A search uses them only
 * at the version it reads in its own snapshot (postgres-text-walk.ts), so a record added or edited since leaves
 * the prefixes on their other paths until the next read. The version has the cached matches' limits
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
  /** Vocabularies this replica read with ts_stat / loaded as another replica (or an earlier start) stored them (tests, diagnostics). */
  reads = 0;
  loads = 0;

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

  /**
   * Reads a dataset's vocabulary now, at its current text version, and stores it for the other replicas (the
   * background loop; tests); false when another replica is reading it (its row locked) or stored it meanwhile (then loaded).
   */
  async read(datasetId: string): Promise<boolean> {
    try {
      await queryRows(this.db, "INSERT INTO text_vocabulary (dataset_id, version) VALUES ($1, -1) ON CONFLICT (dataset_id) DO NOTHING", [
        datasetId,
      ]);
    } catch (error) {
      if (/foreign key/.test(String(error))) return false; // the dataset was deleted meanwhile
      throw error;
    }
    const max = this.options.maxWords ?? MAX_WORDS;
    let found: { version: number; words: string[] | null; stored: boolean } | null;
    try {
      found = await this.db
        .transaction()
        .setIsolationLevel("repeatable read")
        .execute(async (trx) => {
          // The row locked for the read (its snapshot too): another replica reading holds it (skip), one that died released it.
          const row = (
            await queryRows<{ version: number | string; words: string[] | null }>(
              trx,
              "SELECT version, words FROM text_vocabulary WHERE dataset_id = $1 FOR UPDATE SKIP LOCKED",
              [datasetId],
            )
          )[0];
          if (!row) return null;
          this.backend = await backendPid(trx);
          const version = await textVersion(trx, datasetId);
          if (Number(row.version) === version) return { version, words: row.words, stored: true }; // stored by another replica
          // A dataset holding every seq of its range (its counter says as many records as seqs, as postgres-text-walk.ts checks):
          // its rows by range, without the join with `records` (which doubled the read: 12.2 against 6.6 s over 50K records, load 4).
          // Stored as read (more than `max` words: none, the prefixes' other paths), with the version of this snapshot.
          const words = (
            await queryRows<{ words: string[] | null }>(
              trx,
              `UPDATE text_vocabulary SET version = $2, read_at = now(), words = (
                SELECT CASE WHEN count(*) <= $3 THEN coalesce(array_agg(word ORDER BY word), '{}') END FROM ts_stat((
                  SELECT CASE WHEN count(*) = (SELECT coalesce(sum(n), 0) FROM dataset_record_counts WHERE dataset_id = $1)
                    AND count(*) = max(seq) - min(seq) + 1
                  THEN format('SELECT tsv FROM records_fts WHERE record_seq >= %s AND record_seq <= %s', min(seq), max(seq))
                  ELSE format('SELECT f.tsv FROM records_fts f JOIN records r ON r.seq = f.record_seq WHERE r.dataset_id = %L', $1::text) END
                  FROM records WHERE dataset_id = $1)))
              WHERE dataset_id = $1 RETURNING words`,
              [datasetId, version, max],
            )
          )[0]!.words;
          return { version, words, stored: false };
        })
        .finally(() => {
          this.backend = null;
        });
    } catch (error) {
      // Another replica stored a version after this snapshot began (repeatable read): it is loaded at the next look.
      if (/could not serialize/.test(String(error))) return false;
      throw error;
    }
    if (!found) return false;
    if (found.stored) this.loads++;
    else this.reads++;
    this.keep(datasetId, found.version, found.words);
    return !found.stored;
  }

  /** The dataset's vocabulary as stored at `version` (by this replica before a restart, or another); false when not stored. */
  private async load(datasetId: string, version: number): Promise<boolean> {
    const row = (
      await queryRows<{ words: string[] | null }>(this.db, "SELECT words FROM text_vocabulary WHERE dataset_id = $1 AND version = $2", [
        datasetId,
        version,
      ])
    )[0];
    if (!row) return false;
    this.loads++;
    this.keep(datasetId, version, row.words);
    return true;
  }

  /** Keeps a vocabulary read or loaded: none (the prefixes' other paths) when absent or longer than this replica keeps. */
  private keep(datasetId: string, version: number, stored: string[] | null): void {
    const list = stored && stored.length <= (this.options.maxWords ?? MAX_WORDS) ? stored : null;
    let words: Map<string, string[]> | null = null;
    if (list) {
      words = new Map();
      for (const word of list) {
        const key = word.slice(0, KEY_LENGTH);
        const bucket = words.get(key);
        if (bucket) bucket.push(word);
        else words.set(key, [word]);
      }
    }
    this.words.set(datasetId, { version, words, size: list && words ? list.length : 0 });
  }

  /**
   * One look: loads each large enough dataset's vocabulary stored at its text version, and reads it (for every
   * replica) once the version settled and no replica stored or is reading it.
   */
  async tick(): Promise<void> {
    const rows = await datasetTextVersions(this.db, "text_vocabulary", this.options.minRecords ?? MIN_RECORDS);
    const live = new Set(rows.map((r) => r.id));
    for (const map of [this.words, this.seen]) for (const id of map.keys()) if (!live.has(id)) map.delete(id);
    const now = Date.now();
    for (const row of rows) {
      const version = Number(row.version);
      if (this.words.get(row.id)?.version === version) continue;
      if (row.stored !== null && Number(row.stored) === version && (await this.load(row.id, version))) continue;
      const seen = this.seen.get(row.id);
      if (!seen || seen.version !== version) {
        this.seen.set(row.id, { version, since: now });
        continue;
      }
      if (now - seen.since < (this.options.settleMs ?? SETTLE_MS)) continue;
      if (Date.now() < this.notBefore) return;
      const started = Date.now();
      if (await this.read(row.id)) this.notBefore = Date.now() + (this.options.rest ?? 3) * (Date.now() - started);
    }
  }

  /** Looks every TICK_MS (unref'd) until `stop`. */
  start(): void {
    this.loop.start(this.options.tickMs ?? TICK_MS);
  }

  /** Stops looking, cancels a read in progress (a minute at 1M records) and waits for it to end. */
  async stop(): Promise<void> {
    const running = this.loop.stop();
    await cancelBackend(this.db, this.backend);
    await running;
  }
}
