import { type Kysely, sql } from "kysely";
import * as portable from "../0022-uploads.js";

/**
 * PostgreSQL variant of 0022-uploads: the same tables, plus `upload_chunks`, the uploaded bytes in
 * 1 MiB pieces (bytea). Replicas share no disk: the replica that receives a file stores it here, the
 * replica that runs its import reads it back (transfer/import/upload-store.ts); the chunks are
 * deleted when the import ends, is cancelled, or the upload expires.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await portable.up(db);
  await sql`create table upload_chunks (
    upload_id text not null references uploads(id) on delete cascade,
    seq integer not null,
    data bytea not null,
    primary key (upload_id, seq)
  )`.execute(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop table if exists upload_chunks`.execute(db);
  await portable.down(db);
}
