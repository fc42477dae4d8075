import { randomUUID } from "node:crypto";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { type Kysely, sql } from "kysely";
import { z } from "zod";
import type { AppContext } from "../context.js";
import type { DB } from "../db/schema.js";
import type { UserRow } from "../auth/authenticate.js";
import { conflict, forbidden, notFound, parse, unprocessable, uuidParam } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { userOut, workspaceOut } from "../http/serializers.js";
import { requireOwner } from "../auth/policies.js";
import { hashPassword } from "../auth/passwords.js";
import { newApiKey } from "../auth/api-keys.js";
import { isUniqueViolation, tableExists } from "../db/introspect.js";
import { rejectNullKeys } from "../settings/common.js";
import { now } from "../clock.js";

/** Contract 3.2: `^[A-Za-z0-9][A-Za-z0-9-_]*$`. */
export const USERNAME_REGEX = /^[A-Za-z0-9][A-Za-z0-9-_]*$/;
const ROLES = ["owner", "admin", "annotator"] as const;

const firstName = z.string().trim().min(1).max(200);
const lastName = z.string().trim().min(1).max(200).nullable();
const username = z
  .string()
  .min(1)
  .max(200)
  .regex(USERNAME_REGEX, { message: `String should match pattern '${USERNAME_REGEX.source}'` });
const password = z.string().min(8).max(100);

const UserCreate = z.object({
  /** Chosen by the client (the SDK sends `User(id=...)`'s id); a new one when absent. */
  id: uuidParam.nullable().optional(),
  first_name: firstName,
  last_name: lastName.optional().default(null),
  username,
  role: z.enum(ROLES).default("annotator"),
  password,
});

const UserUpdate = z.object({
  first_name: firstName.optional(),
  last_name: lastName.optional(),
  username: username.optional(),
  role: z.enum(ROLES).optional(),
  password: password.optional(),
});

export async function userById(db: Kysely<DB>, id: string): Promise<UserRow> {
  const user = await db.selectFrom("users").selectAll().where("id", "=", id).executeTakeFirst();
  if (!user) throw notFound(`User with id \`${id}\` not found`);
  return user;
}

const duplicateUsername = (name: string) => conflict(`User username \`${name}\` is not unique`);
/** An update to a taken username is a validation error (422), as on the reference server; a create is a conflict (409). */
const takenUsername = (name: string) => unprocessable(`User username \`${name}\` is not unique`);
const duplicateId = (id: string) => conflict(`User with id \`${id}\` already exists`);

/** Users (contract 3.2): owner only, plus the owner-or-self API key regeneration (Tessera extension). */
export function usersRoutes(app: FastifyInstance, ctx: AppContext): void {
  const owner = async (request: FastifyRequest) => {
    const user = await ctx.currentUser(request);
    requireOwner(user);
    return user;
  };

  app.get("/api/v1/users", async (request) => {
    await owner(request);
    const users = await ctx.db.selectFrom("users").selectAll().orderBy("inserted_at").orderBy("username").execute();
    return { items: users.map((u) => userOut(u)) };
  });

  app.get("/api/v1/users/:user_id", async (request) => {
    await owner(request);
    const { user_id } = pathIds(request, "user_id");
    return userOut(await userById(ctx.db, user_id));
  });

  app.post("/api/v1/users", async (request, reply) => {
    await owner(request);
    const body = parse(UserCreate, request.body);
    const existing = await ctx.db.selectFrom("users").select("id").where("username", "=", body.username).executeTakeFirst();
    if (existing) throw duplicateUsername(body.username);
    if (body.id && (await ctx.db.selectFrom("users").select("id").where("id", "=", body.id.toLowerCase()).executeTakeFirst()))
      throw duplicateId(body.id);
    const timestamp = now();
    const apiKey = newApiKey();
    const row = {
      id: body.id?.toLowerCase() ?? randomUUID(),
      username: body.username,
      first_name: body.first_name,
      last_name: body.last_name,
      role: body.role,
      password_hash: await hashPassword(body.password),
      api_key: apiKey.stored,
      session_version: 0,
      inserted_at: timestamp,
      updated_at: timestamp,
    };
    try {
      await ctx.db.insertInto("users").values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw duplicateUsername(body.username);
      throw error;
    }
    // The key is shown this once (only its digest is stored).
    return reply.status(201).send(userOut(row, apiKey.key));
  });

  const update = async (request: FastifyRequest) => {
    await owner(request);
    const { user_id } = pathIds(request, "user_id");
    rejectNullKeys(request.body, ["first_name", "username", "role", "password"]);
    const body = parse(UserUpdate, request.body);
    const user = await userById(ctx.db, user_id);
    if (body.username !== undefined && body.username !== user.username) {
      const taken = await ctx.db.selectFrom("users").select("id").where("username", "=", body.username).executeTakeFirst();
      if (taken) throw takenUsername(body.username);
    }
    const changes: Partial<UserRow> = { updated_at: now() };
    if (body.first_name !== undefined) changes.first_name = body.first_name;
    if (body.last_name !== undefined) changes.last_name = body.last_name;
    if (body.username !== undefined) changes.username = body.username;
    if (body.role !== undefined) changes.role = body.role;
    if (body.password !== undefined) changes.password_hash = await hashPassword(body.password);
    // A new password or role ends the user's sessions: tokens issued before carry the old version.
    const endSessions = body.password !== undefined || (body.role !== undefined && body.role !== user.role);
    try {
      await ctx.db
        .updateTable("users")
        .set((eb) => (endSessions ? { ...changes, session_version: eb("session_version", "+", 1) } : changes))
        .where("id", "=", user.id)
        .execute();
    } catch (error) {
      if (isUniqueViolation(error) && body.username !== undefined) throw takenUsername(body.username);
      throw error;
    }
    return userOut(await userById(ctx.db, user.id));
  };
  app.patch("/api/v1/users/:user_id", update);
  // Some SDK 2.x revisions call PUT for updates (contract 5.3); same partial semantics.
  app.put("/api/v1/users/:user_id", update);

  app.delete("/api/v1/users/:user_id", async (request) => {
    const current = await owner(request);
    const { user_id } = pathIds(request, "user_id");
    const user = await userById(ctx.db, user_id);
    if (user.id === current.id) throw unprocessable("You cannot delete your own user");
    await ctx.db.transaction().execute(async (trx) => {
      // The user's responses go with them (records are owned by datasets, not users).
      if (await tableExists(trx, "responses")) await sql`delete from responses where user_id = ${user.id}`.execute(trx);
      await trx.deleteFrom("users").where("id", "=", user.id).execute();
    });
    return userOut(user);
  });

  app.get("/api/v1/users/:user_id/workspaces", async (request) => {
    await owner(request);
    const { user_id } = pathIds(request, "user_id");
    const user = await userById(ctx.db, user_id);
    let query = ctx.db.selectFrom("workspaces").selectAll("workspaces").orderBy("workspaces.inserted_at").orderBy("workspaces.name");
    if (user.role !== "owner") {
      query = query.innerJoin("workspaces_users as wu", "wu.workspace_id", "workspaces.id").where("wu.user_id", "=", user.id);
    }
    return { items: (await query.execute()).map(workspaceOut) };
  });

  /**
   * Tessera extension (no contract route): regenerate a user's API key. Allowed to the owner role and to
   * the user themself; the old key stops working at once. 200 User with the new `api_key`.
   */
  app.post("/api/v1/users/:user_id/api-key", async (request) => {
    const current = await ctx.currentUser(request);
    const { user_id } = pathIds(request, "user_id");
    if (current.role !== "owner" && current.id !== user_id) throw forbidden();
    const user = await userById(ctx.db, user_id);
    const apiKey = newApiKey();
    await ctx.db.updateTable("users").set({ api_key: apiKey.stored, updated_at: now() }).where("id", "=", user.id).execute();
    return userOut(await userById(ctx.db, user.id), apiKey.key);
  });
}
