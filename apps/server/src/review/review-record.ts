import type { Kysely } from "kysely";
import { mayReview } from "@tessera/domain";
import type { DB } from "../db/schema.js";
import type { UserRow } from "../auth/authenticate.js";
import { forbidden } from "../http/errors.js";
import { recordFor } from "../records/access.js";

/** A record the caller may review: 404 unknown, 403 unless owner or admin of its workspace. */
export async function reviewRecord(db: Kysely<DB>, user: UserRow, recordId: string) {
  if (!mayReview(user.role)) throw forbidden();
  return recordFor(db, user, recordId, "admin");
}
