import { type Kysely, sql } from "kysely";

/**
 * `record_vectors.words`: a signature of the record's words next to each of its vectors, so that a similarity search
 * with a word tests each IVFFlat candidate on the row it reads anyway (search/postgres-vector-words.ts). The word was
 * tested on `record_search`'s tsvector, stored out of line: at 1M bench records ~300-700 candidates each read
 * `records` and `record_search` with its TOAST (~5 blocks, mostly not in shared buffers): 150-230 of 230-280 ms.
 *
 * The signature (`tessera_words_signature`): 2,048 bits as int8[32], one bit per lexeme (`hashtext`), 280 bytes:
 * the bench's rows (1,660 bytes with a 384-dimension vector) stay under the 2 KB that would move their vector out of
 * line. ~195 lexemes a record set ~9% of the bits, so a word not in a record passes it 9% of the time, and only those
 * and the true matches read the tsvector (`tessera_words_maybe`). ~120 µs of PostgreSQL CPU per row.
 *
 * Kept by triggers: a vector written gets its record's signature (`record_search` by the record's seq), a record's
 * words rewritten (`record_search.tsv`, by the text trigger of 0025, on a fields update) update its vectors'. NULL (a vector written before
 * this migration, or of a record without its search row) passes every word: the tsvector decides.
 *
 * The vectors written before are filled in the background (search/postgres-vector-words.ts), by ranges of records'
 * seqs (`record_vectors_words_fill`, one row, written here: cheap at any size).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create function tessera_words_signature(t tsvector) returns int8[] language sql immutable parallel safe as $$
    select array_agg(coalesce(w.m, 0) order by i) from generate_series(0, 31) i
      left join (select (hashtext(l) >> 6) & 31 as k, bit_or(1::int8 << (hashtext(l) & 63)) as m
        from unnest(tsvector_to_array(t)) l group by 1) w on w.k = i $$`.execute(db);
  // Whether a signature may hold every lexeme hash of a query (NULL: unknown, it may).
  await sql`create function tessera_words_maybe(words int8[], hashes int4[]) returns boolean language plpgsql immutable parallel safe as $$
    declare h int4;
    begin
      if words is null or hashes is null then return true; end if;
      foreach h in array hashes loop
        if (words[((h >> 6) & 31) + 1] & (1::int8 << (h & 63))) = 0 then return false; end if;
      end loop;
      return true;
    end $$`.execute(db);
  await sql`alter table record_vectors add column words int8[]`.execute(db);
  // Never compressed or moved out of line: the test reads it on the candidate's row.
  await sql`alter table record_vectors alter column words set storage plain`.execute(db);
  await sql`create function tessera_record_vectors_words() returns trigger language plpgsql as $$
    begin
      new.words := (select tessera_words_signature(x.tsv) from records r join record_search x on x.seq = r.seq where r.id = new.record_id);
      return new;
    end $$`.execute(db);
  await sql`create trigger record_vectors_words before insert or update of record_id on record_vectors
    for each row execute function tessera_record_vectors_words()`.execute(db);
  // Not on insert: a new record has no vectors yet (they reference it), and a statement on record_vectors in the
  // record's transaction would hold its indexes, which the IVFFlat rebuild's ALTER INDEX waits for.
  await sql`create function tessera_record_search_words() returns trigger language plpgsql as $$
    begin
      if old.tsv = new.tsv and old.id = new.id then return null; end if;
      update record_vectors set words = tessera_words_signature(new.tsv) where record_id = new.id;
      return null;
    end $$`.execute(db);
  await sql`create trigger record_search_words after update of tsv, id on record_search
    for each row execute function tessera_record_search_words()`.execute(db);
  // The records whose vectors the job fills (search/postgres-vector-words.ts): min and max seq, through the primary key.
  await sql`create table record_vectors_words_fill (id integer primary key check (id = 1), next_seq bigint not null, last_seq bigint not null)`.execute(
    db,
  );
  await sql`insert into record_vectors_words_fill select 1, min(seq), max(seq) from records having count(*) > 0`.execute(db);
}
