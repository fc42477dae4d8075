import type { FastifyRequest } from "fastify";
import type { Kysely, Selectable } from "kysely";
import type { DB, UsersTable } from "../db/schema.js";
import type { TokenService } from "./tokens.js";
import { unauthorized } from "../http/errors.js";

export type UserRow = Selectable<UsersTable>;

/**
 * Contract section 1.1: the X-Argilla-Api-Key header first (an unknown key falls through), then the
 * bearer token. No user gives the legacy 401.
 */
export async function authenticate(request: FastifyRequest, db: Kysely<DB>, tokens: TokenService): Promise<UserRow> {
  const apiKey = request.headers["x-argilla-api-key"];
  if (typeof apiKey === "string" && apiKey.length > 0 && apiKey.length < 512) {
    const user = await db.selectFrom("users").selectAll().where("api_key", "=", apiKey).executeTakeFirst();
    if (user) return user;
  }
  const authorization = request.headers.authorization;
  if (typeof authorization === "string" && /^bearer /i.test(authorization)) {
    const username = await tokens.verify(authorization.slice(7).trim());
    if (!username) throw unauthorized("Invalid token");
    const user = await db.selectFrom("users").selectAll().where("username", "=", username).executeTakeFirst();
    if (user) return user;
  }
  throw unauthorized();
}
