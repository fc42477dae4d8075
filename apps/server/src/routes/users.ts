import type { FastifyInstance, FastifyRequest } from "fastify";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { forbidden, parse, uuidParam } from "../http/errors.js";
import { pathIds } from "../http/params.js";
import { userOut, workspaceOut } from "../http/serializers.js";
import { requireOwner } from "../auth/policies.js";
import { rejectNullKeys } from "../settings/common.js";
import { findUser } from "../users/use-cases/find-user.js";
import { listUsers } from "../users/use-cases/list-users.js";
import { createUser } from "../users/use-cases/create-user.js";
import { updateUser } from "../users/use-cases/update-user.js";
import { deleteUser } from "../users/use-cases/delete-user.js";
import { regenerateApiKey } from "../users/use-cases/regenerate-api-key.js";
import { listUserWorkspaces } from "../workspaces/use-cases/list-user-workspaces.js";

/** Contract 3.2: `^[A-Za-z0-9][A-Za-z0-9-_]*$`. */
export const USERNAME_REGEX = /^[A-Za-z0-9][A-Za-z0-9-_]*$/;
const ROLES = ["owner", "admin", "annotator"] as const;

// Trimmed, as the reference server strips them; no control characters, as every other name (settings/common.ts).
const personName = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .regex(/^\P{Cc}*$/u, { message: "String should not contain control characters" });
const firstName = personName;
const lastName = personName.nullable();
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

/** Users (contract 3.2): owner only, plus the owner-or-self API key regeneration (Tessera extension). */
export function usersRoutes(app: FastifyInstance, ctx: AppContext): void {
  const owner = async (request: FastifyRequest) => {
    const user = await ctx.currentUser(request);
    requireOwner(user);
    return user;
  };

  app.get("/api/v1/users", async (request) => {
    await owner(request);
    return { items: (await listUsers(ctx.db)).map((u) => userOut(u)) };
  });

  app.get("/api/v1/users/:user_id", async (request) => {
    await owner(request);
    const { user_id } = pathIds(request, "user_id");
    return userOut(await findUser(ctx.db, user_id));
  });

  app.post("/api/v1/users", async (request, reply) => {
    await owner(request);
    const body = parse(UserCreate, request.body);
    const { user, apiKey } = await createUser(ctx.db, body);
    // The key is shown this once (only its digest is stored).
    return reply.status(201).send(userOut(user, apiKey));
  });

  const update = async (request: FastifyRequest) => {
    await owner(request);
    const { user_id } = pathIds(request, "user_id");
    rejectNullKeys(request.body, ["first_name", "username", "role", "password"]);
    const body = parse(UserUpdate, request.body);
    const user = await findUser(ctx.db, user_id);
    return userOut(await updateUser(ctx.db, user, body));
  };
  app.patch("/api/v1/users/:user_id", update);
  // Some SDK 2.x revisions call PUT for updates (contract 5.3); same partial semantics.
  app.put("/api/v1/users/:user_id", update);

  app.delete("/api/v1/users/:user_id", async (request) => {
    const current = await owner(request);
    const { user_id } = pathIds(request, "user_id");
    const user = await findUser(ctx.db, user_id);
    await deleteUser(ctx.db, user, current);
    return userOut(user);
  });

  app.get("/api/v1/users/:user_id/workspaces", async (request) => {
    await owner(request);
    const { user_id } = pathIds(request, "user_id");
    const user = await findUser(ctx.db, user_id);
    return { items: (await listUserWorkspaces(ctx.db, user, "creation")).map(workspaceOut) };
  });

  /**
   * Tessera extension (no contract route): regenerate a user's API key. Allowed to the owner role and to
   * the user themself; the old key stops working at once. 200 User with the new `api_key`.
   */
  app.post("/api/v1/users/:user_id/api-key", async (request) => {
    const current = await ctx.currentUser(request);
    const { user_id } = pathIds(request, "user_id");
    if (current.role !== "owner" && current.id !== user_id) throw forbidden();
    const { user, apiKey } = await regenerateApiKey(ctx.db, await findUser(ctx.db, user_id));
    return userOut(user, apiKey);
  });
}
