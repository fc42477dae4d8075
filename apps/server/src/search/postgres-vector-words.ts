import { sql, type Kysely, type Transaction } from "kysely";
import type { DB } from "../db/schema.js";
import type { Builder } from "./postgres-sql.js";
import { SeqRangeJob, type SeqRangeJobOptions } from "./postgres-seq-range-job.js";

/** Records (seqs) whose vectors get their signature per batch. */
const BATCH_SEQS = 2000;

/**
 * The signature test of a similarity search's word (migration 0039): true unless the candidate's `words` (its
 * record's word signature, on the vector's row) lacks a bit of one of the query's plain words, so that only the
 * records that may hold them read their tsvector (textCondition). Prefix words are not in it (any lexeme may
 * start with them). null: no plain word.
 */
export function wordsSignatureCondition(b: Builder, words: { word: string; prefix: boolean }[], vectorAlias = "v"): string | null {
  const plain = words.filter((w) => !w.prefix);
  if (plain.length === 0) return null;
  const lexemes = plain.map((w) => `to_tsvector('tessera_search', ${b.p(w.word)})`).join(" || ");
  // An InitPlan: the hashes once per statement.
  return `tessera_words_maybe(${vectorAlias}.words, (SELECT array_agg(hashtext(l)) FROM unnest(tsvector_to_array(${lexemes})) l))`;
}

/**
 * Fills `record_vectors.words` of the vectors written before migration 0039 (later ones get it from their
 * trigger), by ranges of BATCH_SEQS records (`record_vectors_words_fill`: SeqRangeJob), only vectors still without a
 * signature (a concurrent write of the record's words sets it itself). Until a vector has its signature, its
 * record's tsvector is read (the answers are the same, only slower). At 1M bench vectors: ~0.6 ms of PostgreSQL CPU a
 * vector (the signature ~120 µs, the row written again with its index entries: 100K in 59 s at load 2-3), ~10 minutes
 * of one core (~20 with the rest between batches); record_vectors grows 1.95 → 3.1 GB and its IVFFlat index 790 MB →
 * 1.24 GB until (auto)vacuum reuses the old rows' space.
 */
export class PostgresVectorWords extends SeqRangeJob {
  constructor(db: Kysely<DB>, options: SeqRangeJobOptions = {}) {
    super(db, "record_vectors_words_fill", BATCH_SEQS, "PostgreSQL: filling the word signatures of the vectors failed", options);
  }

  /** Vectors given their signature by this process (tests, diagnostics). */
  get filled(): number {
    return this.written;
  }

  protected async rewrite(trx: Transaction<DB>, next: number, end: number): Promise<number> {
    const updated = await sql`UPDATE record_vectors v SET words = tessera_words_signature(x.tsv)
        FROM records r JOIN record_search x ON x.seq = r.seq
        WHERE r.seq >= ${next} AND r.seq <= ${end} AND v.record_id = r.id AND v.words IS NULL`.execute(trx);
    return Number(updated.numAffectedRows ?? 0);
  }
}
