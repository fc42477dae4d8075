import type { FastifyRequest } from "fastify";
import type { Kysely, Selectable } from "kysely";
import type { DB, UsersTable } from "../db/schema.js";
import type { TokenService } from "./tokens.js";
import { unauthorized } from "../http/errors.js";
import { hashApiKey } from "./api-keys.js";

export type UserRow = Selectable<UsersTable>;

/**
 * Contract section 1.1: the X-Argilla-Api-Key header first (an unknown key falls through), then the
 * bearer token. No user gives the legacy 401. Keys are looked up by their digest (auth/api-keys.ts);
 * a token must name the user's current id and session version, so a password or role change, or
 * deleting the user (a new user of the same name has another id), ends the tokens issued before.
 */
export async function authenticate(request: FastifyRequest, db: Kysely<DB>, tokens: TokenService): Promise<UserRow> {
  const apiKey = request.headers["x-argilla-api-key"];
  if (typeof apiKey === "string" && apiKey.length > 0 && apiKey.length < 512) {
    const user = await db.selectFrom("users").selectAll().where("api_key", "=", hashApiKey(apiKey)).executeTakeFirst();
    if (user) return user;
  }
  const authorization = request.headers.authorization;
  if (typeof authorization === "string" && /^bearer /i.test(authorization)) {
    const claims = await tokens.verify(authorization.slice(7).trim());
    if (!claims) throw unauthorized("Invalid token");
    const user = await db.selectFrom("users").selectAll().where("username", "=", claims.username).executeTakeFirst();
    if (user && (claims.identity !== user.id || claims.ver !== user.session_version)) throw unauthorized("Invalid token");
    if (user) return user;
  }
  throw unauthorized();
}
